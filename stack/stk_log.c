/* SPDX-License-Identifier: BSD-3-Clause */
/* stk_log.c - registers the stack layer's log type ("droce.stack"). */
#include "stk_log.h"

RTE_LOG_REGISTER_DEFAULT(stk_logtype, INFO);
