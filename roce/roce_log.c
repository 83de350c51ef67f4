/* SPDX-License-Identifier: BSD-3-Clause */
/* roce_log.c - registers the transport layer's log type ("droce.roce"). */
#include <rte_log.h>

RTE_LOG_REGISTER_DEFAULT(roce_logtype, INFO);
