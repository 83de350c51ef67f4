/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_wire.h - the Communication Management messages, as bytes and as values.
 *
 * Where it sits: the CM talks to its peer through 256-byte MADs. Each one travels as a UD
 * SEND ONLY to QP 1 (the GSI QP; Q_Key 0x80010000, P_Key 0xffff) and starts right after the
 * DETH. roce_rx hands the datagram to the CM, and the CM calls roce_cm_decode(). To send, the
 * CM fills a struct roce_cm_msg, calls roce_cm_encode() and frames the 256 bytes with
 * roce_tx_build() (UD SEND ONLY, DQPN 1, DETH Q_Key 0x80010000, source QP 1).
 *
 * What it implements:
 * - the MAD common header (IBA Vol 1 13.4.3), its methods (13.4.5), its status bits
 *   (13.4.7), and what a receiver answers to a MAD it cannot serve (13.4.9,
 *   roce_mad_error_resp());
 * - the CM messages REQ, MRA, REJ, REP, RTU, DREQ and DREP (IBA 12.6.5-12.6.11, Tables
 *   106-113), and SIDR_REQ and SIDR_REP (IBA 12.11, Tables 119-120). Each is a
 *   packed wire struct with a pinned size. Sub-word fields have typed accessors, with a
 *   round-trip test in tests/roce/test_cm_wire.c. Each message also has a host-order view;
 *   roce_cm_decode() and roce_cm_encode() convert between the two;
 * - the RDMA IP CM service (IBTA Annex A11, as Linux rdma_cm/librdmacm use it). Service IDs
 *   are 0x0000000001PPpppp (port space, port). rdma_cm puts a 36-byte header with the IP
 *   addresses and source port at the start of REQ and SIDR_REQ private data;
 * - GIDs for IP addresses: RoCEv2 uses an IPv6 address as the GID and an IPv4 address as
 *   ::ffff:a.b.c.d.
 *
 * LAP/APR (path migration) and ClassPortInfo are known by attribute ID only. The decoder
 * refuses them with -EOPNOTSUPP, and roce_cm_mad_status() tells the caller what to answer.
 */
#ifndef ROCE_CM_WIRE_H
#define ROCE_CM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "stk_pkt.h"

/* ---- constants (IBA 13.4, 12.4, 12.6) ---- */
#define ROCE_MAD_LEN 256      /**< every MAD on QP 1 is exactly this long (IBA 13.4) */
#define ROCE_MAD_HDR_LEN 24   /**< the common header */
#define ROCE_MAD_DATA_LEN 232 /**< what follows it: one CM message */

#define ROCE_MAD_BASE_VERSION 1	 /**< the only IBA base version */
#define ROCE_MGMT_CLASS_CM 0x07	 /**< Communication Management class */
#define ROCE_CM_CLASS_VERSION 2	 /**< the CM class version (IBA 1.2 onwards, Linux) */
#define ROCE_GSI_QPN 1		 /**< GSI QP: MADs other than SMPs go here */
#define ROCE_GSI_QKEY 0x80010000 /**< the well-known Q_Key of QP 1 */
#define ROCE_GSI_PKEY 0xffff	 /**< default partition, as Linux sends CM MADs */

/** MAD methods (IBA 13.4.5). The top bit (R) marks a response. */
enum roce_mad_method {
	ROCE_MAD_METHOD_GET = 0x01,
	ROCE_MAD_METHOD_SET = 0x02,
	ROCE_MAD_METHOD_SEND = 0x03, /**< every CM message uses it; nothing answers a Send */
	ROCE_MAD_METHOD_TRAP = 0x05,
	ROCE_MAD_METHOD_REPORT = 0x06,
	ROCE_MAD_METHOD_TRAP_REPRESS = 0x07,
	ROCE_MAD_METHOD_GET_RESP = 0x81,
	ROCE_MAD_METHOD_REPORT_RESP = 0x86,
};
#define ROCE_MAD_METHOD_RESP 0x80u /**< R bit: this MAD is a response */

/*
 * MAD status (IBA 13.4.7). Bit 0 busy, bit 1 redirect, bits 4:2 a code for the
 * field that was invalid, bits 15:8 class-specific. These are the status values, already
 * shifted into place.
 */
#define ROCE_MAD_STATUS_BUSY 0x0001u
#define ROCE_MAD_STATUS_REDIRECT 0x0002u
#define ROCE_MAD_STATUS_BAD_VERSION 0x0004u	   /**< code 1: base/class version unsupported */
#define ROCE_MAD_STATUS_METHOD_UNSUPP 0x0008u	   /**< code 2: method not supported */
#define ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP 0x000cu /**< code 3: method/attribute combination */
#define ROCE_MAD_STATUS_INVALID_FIELD 0x001cu /**< code 7: invalid attribute (modifier) value */
#define ROCE_MAD_STATUS_CODE_MASK 0x001cu

/* X(name, attribute ID, printable name): the CM class attributes (IBA 12.6). */
#define ROCE_CM_ATTR_LIST(X)                                                                       \
	X(CLASS_PORT_INFO, 0x0001, "ClassPortInfo")                                                \
	X(REQ, 0x0010, "REQ")                                                                      \
	X(MRA, 0x0011, "MRA")                                                                      \
	X(REJ, 0x0012, "REJ")                                                                      \
	X(REP, 0x0013, "REP")                                                                      \
	X(RTU, 0x0014, "RTU")                                                                      \
	X(DREQ, 0x0015, "DREQ")                                                                    \
	X(DREP, 0x0016, "DREP")                                                                    \
	X(SIDR_REQ, 0x0017, "SIDR_REQ")                                                            \
	X(SIDR_REP, 0x0018, "SIDR_REP")                                                            \
	X(LAP, 0x0019, "LAP")                                                                      \
	X(APR, 0x001a, "APR")

#define ROCE_CM_ATTR_ENUM_(n, v, s) ROCE_CM_ATTR_##n = v,
/** CM attribute IDs: the MAD header's AttributeID says which message follows. */
enum roce_cm_attr { ROCE_CM_ATTR_LIST(ROCE_CM_ATTR_ENUM_) };
#undef ROCE_CM_ATTR_ENUM_

/** @return the attribute's name ("REQ", ...), or "UNKNOWN". */
const char *roce_cm_attr_name(uint16_t attr_id);

/*
 * X(name, code, description): REJ reasons (IBA 12.6.7.2; the numbering of Linux
 * enum ib_cm_rej_reason). 34 is unassigned. 35 came with ECE (IBA 1.4).
 */
#define ROCE_CM_REJ_REASON_LIST(X)                                                                 \
	X(NO_QP, 1, "no QP available")                                                             \
	X(NO_EEC, 2, "no EEC available")                                                           \
	X(NO_RESOURCES, 3, "no resources available")                                               \
	X(TIMEOUT, 4, "timeout")                                                                   \
	X(UNSUPPORTED, 5, "unsupported request")                                                   \
	X(INVALID_COMM_ID, 6, "invalid communication ID")                                          \
	X(INVALID_COMM_INSTANCE, 7, "invalid communication instance")                              \
	X(INVALID_SERVICE_ID, 8, "invalid service ID")                                             \
	X(INVALID_TRANSPORT_TYPE, 9, "invalid transport service type")                             \
	X(STALE_CONN, 10, "stale connection")                                                      \
	X(RDC_NOT_EXIST, 11, "RDC does not exist")                                                 \
	X(INVALID_GID, 12, "primary remote port GID rejected")                                     \
	X(INVALID_LID, 13, "primary remote port LID rejected")                                     \
	X(INVALID_SL, 14, "invalid primary SL")                                                    \
	X(INVALID_TRAFFIC_CLASS, 15, "invalid primary traffic class")                              \
	X(INVALID_HOP_LIMIT, 16, "invalid primary hop limit")                                      \
	X(INVALID_PACKET_RATE, 17, "invalid primary packet rate")                                  \
	X(INVALID_ALT_GID, 18, "alternate remote port GID rejected")                               \
	X(INVALID_ALT_LID, 19, "alternate remote port LID rejected")                               \
	X(INVALID_ALT_SL, 20, "invalid alternate SL")                                              \
	X(INVALID_ALT_TRAFFIC_CLASS, 21, "invalid alternate traffic class")                        \
	X(INVALID_ALT_HOP_LIMIT, 22, "invalid alternate hop limit")                                \
	X(INVALID_ALT_PACKET_RATE, 23, "invalid alternate packet rate")                            \
	X(PORT_CM_REDIRECT, 24, "port and CM redirection")                                         \
	X(PORT_REDIRECT, 25, "port redirection")                                                   \
	X(INVALID_MTU, 26, "invalid path MTU")                                                     \
	X(INSUFFICIENT_RESP_RESOURCES, 27, "insufficient responder resources")                     \
	X(CONSUMER_DEFINED, 28, "consumer-defined")                                                \
	X(INVALID_RNR_RETRY, 29, "invalid RNR NAK retry count")                                    \
	X(DUPLICATE_LOCAL_COMM_ID, 30, "duplicate local communication ID")                         \
	X(INVALID_CLASS_VERSION, 31, "unsupported class version")                                  \
	X(INVALID_FLOW_LABEL, 32, "invalid primary flow label")                                    \
	X(INVALID_ALT_FLOW_LABEL, 33, "invalid alternate flow label")                              \
	X(VENDOR_OPTION_NOT_SUPPORTED, 35, "vendor option not supported")

#define ROCE_CM_REJ_ENUM_(n, v, s) ROCE_CM_REJ_##n = v,
/** Why a REQ, REP or other message was rejected. */
enum roce_cm_rej_reason { ROCE_CM_REJ_REASON_LIST(ROCE_CM_REJ_ENUM_) };
#undef ROCE_CM_REJ_ENUM_

/** @return the reason's description, or "unknown" for codes IBA does not assign. */
const char *roce_cm_rej_reason_name(uint16_t reason);

/* X(name, code, description): SIDR_REP status (IBA 12.11, Table 120). */
#define ROCE_CM_SIDR_STATUS_LIST(X)                                                                \
	X(SUCCESS, 0, "valid QP")                                                                  \
	X(UNSUPPORTED, 1, "service ID not supported")                                              \
	X(REJECT, 2, "rejected by the service provider")                                           \
	X(NO_QP, 3, "no QP available")                                                             \
	X(REDIRECT, 4, "redirect (ClassPortInfo follows)")                                         \
	X(UNSUPPORTED_VERSION, 5, "SIDR version not supported")

#define ROCE_CM_SIDR_ENUM_(n, v, s) ROCE_CM_SIDR_##n = v,
/** SIDR_REP status. */
enum roce_cm_sidr_status { ROCE_CM_SIDR_STATUS_LIST(ROCE_CM_SIDR_ENUM_) };
#undef ROCE_CM_SIDR_ENUM_

/** @return the status's description, or "unknown". */
const char *roce_cm_sidr_status_name(uint8_t status);

/** Which message a REJ rejects (MessageREJected, 2 bits; 3 is reserved). */
enum roce_cm_rej_msg {
	ROCE_CM_REJ_MSG_REQ = 0,   /**< the REQ */
	ROCE_CM_REJ_MSG_REP = 1,   /**< the REP */
	ROCE_CM_REJ_MSG_OTHER = 2, /**< no message, or another one */
};

/** Which message an MRA acknowledges (MessageMRAed, 2 bits; 3 is reserved). */
enum roce_cm_mra_msg {
	ROCE_CM_MRA_MSG_REQ = 0,
	ROCE_CM_MRA_MSG_REP = 1,
	ROCE_CM_MRA_MSG_LAP = 2,
};

/** REQ Transport Service Type (2 bits). 3 with Extended Transport Type 1 is XRC. */
enum roce_cm_transport {
	ROCE_CM_TRANSPORT_RC = 0,
	ROCE_CM_TRANSPORT_UC = 1,
	ROCE_CM_TRANSPORT_RD = 2,
	ROCE_CM_TRANSPORT_EXT = 3,
};

/* Private data lengths (IBA Tables 106-120; Linux enum ib_cm_data_size). */
#define ROCE_CM_REQ_PRIV_LEN 92
#define ROCE_CM_MRA_PRIV_LEN 222
#define ROCE_CM_REJ_PRIV_LEN 148
#define ROCE_CM_REJ_ARI_LEN 72
#define ROCE_CM_REP_PRIV_LEN 196
#define ROCE_CM_RTU_PRIV_LEN 224
#define ROCE_CM_DREQ_PRIV_LEN 220
#define ROCE_CM_DREP_PRIV_LEN 224
#define ROCE_CM_SIDR_REQ_PRIV_LEN 216
#define ROCE_CM_SIDR_REP_PRIV_LEN 136
#define ROCE_CM_SIDR_REP_INFO_LEN 72
#define ROCE_GID_LEN 16

/* ---- wire format: the MAD common header (IBA 13.4.3) ---- */

/** MAD common header. */
struct roce_mad_hdr {
	uint8_t base_version;	   /**< ROCE_MAD_BASE_VERSION */
	uint8_t mgmt_class;	   /**< ROCE_MGMT_CLASS_CM, ... */
	uint8_t class_version;	   /**< ROCE_CM_CLASS_VERSION for the CM */
	uint8_t method;		   /**< R(7) Method(6:0): enum roce_mad_method */
	rte_be16_t status;	   /**< ROCE_MAD_STATUS_* bits; 0 in requests */
	rte_be16_t class_specific; /**< 0 for the CM */
	rte_be64_t tid;		   /**< transaction ID, echoed by the answer */
	rte_be16_t attr_id;	   /**< enum roce_cm_attr */
	rte_be16_t resv;	   /**< reserved, 0 */
	rte_be32_t attr_mod;	   /**< attribute modifier, 0 for CM messages */
} __rte_packed;
_Static_assert(sizeof(struct roce_mad_hdr) == ROCE_MAD_HDR_LEN, "MAD header is 24 bytes");

static inline uint8_t roce_mad_base_version(const struct roce_mad_hdr *h)
{
	return h->base_version;
}

static inline uint8_t roce_mad_mgmt_class(const struct roce_mad_hdr *h)
{
	return h->mgmt_class;
}

static inline uint8_t roce_mad_class_version(const struct roce_mad_hdr *h)
{
	return h->class_version;
}

/** The whole method byte, R bit included (GetResp is 0x81). */
static inline uint8_t roce_mad_method(const struct roce_mad_hdr *h)
{
	return h->method;
}

static inline void roce_mad_set_method(struct roce_mad_hdr *h, uint8_t method)
{
	h->method = method;
}

/** R bit: the MAD answers a request. */
static inline bool roce_mad_is_resp(const struct roce_mad_hdr *h)
{
	return (h->method & ROCE_MAD_METHOD_RESP) != 0;
}

static inline void roce_mad_set_resp(struct roce_mad_hdr *h, bool on)
{
	h->method = (uint8_t)(on ? h->method | ROCE_MAD_METHOD_RESP
				 : h->method & ~ROCE_MAD_METHOD_RESP);
}

static inline uint16_t roce_mad_status(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->status);
}

static inline void roce_mad_set_status(struct roce_mad_hdr *h, uint16_t status)
{
	h->status = rte_cpu_to_be_16(status);
}

static inline uint64_t roce_mad_tid(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_64(h->tid);
}

static inline void roce_mad_set_tid(struct roce_mad_hdr *h, uint64_t tid)
{
	h->tid = rte_cpu_to_be_64(tid);
}

static inline uint16_t roce_mad_attr_id(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->attr_id);
}

static inline void roce_mad_set_attr_id(struct roce_mad_hdr *h, uint16_t id)
{
	h->attr_id = rte_cpu_to_be_16(id);
}

static inline uint32_t roce_mad_attr_mod(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_32(h->attr_mod);
}

static inline void roce_mad_set_attr_mod(struct roce_mad_hdr *h, uint32_t mod)
{
	h->attr_mod = rte_cpu_to_be_32(mod);
}

/* ---- wire format: the CM messages (IBA 12.6, 12.11) ---- */

/**
 * One path of a REQ: primary at message byte 52, alternate at 96 (IBA Table 106). LIDs are
 * 0xffff on RoCE.
 */
struct roce_cm_path_wire {
	rte_be16_t local_lid;		  /**< local port LID */
	rte_be16_t remote_lid;		  /**< remote port LID */
	uint8_t local_gid[ROCE_GID_LEN];  /**< local port GID (our IP) */
	uint8_t remote_gid[ROCE_GID_LEN]; /**< remote port GID (the peer's IP) */
	rte_be32_t flow_rate;		  /**< FlowLabel(31:12) resv(11:6) PacketRate(5:0) */
	uint8_t traffic_class;		  /**< GRH traffic class (IP DSCP/ECN) */
	uint8_t hop_limit;		  /**< GRH hop limit (IP TTL) */
	uint8_t sl_local;		  /**< SL(7:4) SubnetLocal(3) resv(2:0) */
	uint8_t ack_timeout;		  /**< LocalACKTimeout(7:3) SAP(2, alternate) resv(1:0) */
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_path_wire) == 44, "a REQ path is 44 bytes");

/** REQ: connection request (IBA 12.6.5 Table 106). */
struct roce_cm_req_wire {
	rte_be32_t local_comm_id;      /**< 0: the requester's communication ID */
	rte_be32_t vendor;	       /**< 4: resv(31:24) VendorID(23:0) (ECE) */
	rte_be64_t service_id;	       /**< 8 */
	rte_be64_t local_ca_guid;      /**< 16 */
	rte_be32_t resv24;	       /**< 24 */
	rte_be32_t local_qkey;	       /**< 28: Q_Key (RD/UD; Linux sends 0 for RC) */
	rte_be32_t qpn_rres;	       /**< 32: LocalQPN(31:8) ResponderResources(7:0) */
	rte_be32_t eecn_idepth;	       /**< 36: LocalEECN(31:8) InitiatorDepth(7:0) */
	rte_be32_t reecn_flags;	       /**< 40: RemoteEECN(31:8) RemoteCMResponseTimeout(7:3)
					*    TransportServiceType(2:1) EndToEndFlowControl(0) */
	rte_be32_t psn_flags;	       /**< 44: StartingPSN(31:8) LocalCMResponseTimeout(7:3)
					*    RetryCount(2:0) */
	rte_be16_t pkey;	       /**< 48: partition key */
	uint8_t mtu_rdc_rnr;	       /**< 50: PathMTU(7:4) RDCExists(3) RNRRetryCount(2:0) */
	uint8_t retries_srq_ext;       /**< 51: MaxCMRetries(7:4) SRQ(3) ExtTransportType(2:0) */
	struct roce_cm_path_wire prim; /**< 52: primary path */
	struct roce_cm_path_wire alt;  /**< 96: alternate path (zero when there is none) */
	uint8_t private_data[ROCE_CM_REQ_PRIV_LEN]; /**< 140 */
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_req_wire) == ROCE_MAD_DATA_LEN, "REQ is 232 bytes");

/** MRA: message receipt acknowledgement (IBA 12.6.6 Table 107). */
struct roce_cm_mra_wire {
	rte_be32_t local_comm_id;
	rte_be32_t remote_comm_id;
	uint8_t msg_mraed;	 /**< MessageMRAed(7:6) resv(5:0): enum roce_cm_mra_msg */
	uint8_t service_timeout; /**< ServiceTimeout(7:3) resv(2:0) */
	uint8_t private_data[ROCE_CM_MRA_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_mra_wire) == ROCE_MAD_DATA_LEN, "MRA is 232 bytes");

/** REJ: reject (IBA 12.6.7 Table 108). */
struct roce_cm_rej_wire {
	rte_be32_t local_comm_id;
	rte_be32_t remote_comm_id;
	uint8_t msg_rejected; /**< MessageREJected(7:6) resv(5:0): enum roce_cm_rej_msg */
	uint8_t ari_len;      /**< RejectInfoLength(7:1) resv(0): bytes of ARI used */
	rte_be16_t reason;    /**< enum roce_cm_rej_reason */
	uint8_t ari[ROCE_CM_REJ_ARI_LEN]; /**< additional reject information */
	uint8_t private_data[ROCE_CM_REJ_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_rej_wire) == ROCE_MAD_DATA_LEN, "REJ is 232 bytes");

/** REP: reply to a REQ (IBA 12.6.8 Table 110). The ECE vendor ID is split over 3 bytes. */
struct roce_cm_rep_wire {
	rte_be32_t local_comm_id;    /**< 0 */
	rte_be32_t remote_comm_id;   /**< 4 */
	rte_be32_t local_qkey;	     /**< 8 */
	rte_be32_t qpn_vid;	     /**< 12: LocalQPN(31:8) VendorID[23:16](7:0) */
	rte_be32_t eecn_vid;	     /**< 16: LocalEECN(31:8) VendorID[15:8](7:0) */
	rte_be32_t psn_vid;	     /**< 20: StartingPSN(31:8) VendorID[7:0](7:0) */
	uint8_t responder_resources; /**< 24 */
	uint8_t initiator_depth;     /**< 25 */
	uint8_t ack_fo_e2e; /**< 26: TargetACKDelay(7:3) FailoverAccepted(2:1) E2EFlowControl(0) */
	uint8_t rnr_srq;    /**< 27: RNRRetryCount(7:5) SRQ(4) resv(3:0) */
	rte_be64_t local_ca_guid;		    /**< 28 */
	uint8_t private_data[ROCE_CM_REP_PRIV_LEN]; /**< 36 */
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_rep_wire) == ROCE_MAD_DATA_LEN, "REP is 232 bytes");

/** RTU: ready to use (IBA 12.6.9 Table 111). */
struct roce_cm_rtu_wire {
	rte_be32_t local_comm_id;
	rte_be32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_RTU_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_rtu_wire) == ROCE_MAD_DATA_LEN, "RTU is 232 bytes");

/** DREQ: disconnect request (IBA 12.6.10 Table 112). */
struct roce_cm_dreq_wire {
	rte_be32_t local_comm_id;
	rte_be32_t remote_comm_id;
	rte_be32_t remote_qpn; /**< RemoteQPN/EECN(31:8) resv(7:0) */
	uint8_t private_data[ROCE_CM_DREQ_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_dreq_wire) == ROCE_MAD_DATA_LEN, "DREQ is 232 bytes");

/** DREP: disconnect reply (IBA 12.6.11 Table 113). */
struct roce_cm_drep_wire {
	rte_be32_t local_comm_id;
	rte_be32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_DREP_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_drep_wire) == ROCE_MAD_DATA_LEN, "DREP is 232 bytes");

/** SIDR_REQ: service ID resolution request (IBA 12.11, Table 119). */
struct roce_cm_sidr_req_wire {
	rte_be32_t request_id;
	rte_be16_t pkey;
	rte_be16_t resv6;
	rte_be64_t service_id;
	uint8_t private_data[ROCE_CM_SIDR_REQ_PRIV_LEN];
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_sidr_req_wire) == ROCE_MAD_DATA_LEN, "SIDR_REQ is 232 bytes");

/** SIDR_REP: service ID resolution reply (IBA 12.11, Table 120). */
struct roce_cm_sidr_rep_wire {
	rte_be32_t request_id;			 /**< 0 */
	uint8_t status;				 /**< 4: enum roce_cm_sidr_status */
	uint8_t info_len;			 /**< 5: bytes of additional information used */
	rte_be16_t resv6;			 /**< 6 */
	rte_be32_t qpn;				 /**< 8: QPN(31:8) resv(7:0) */
	rte_be64_t service_id;			 /**< 12 */
	rte_be32_t qkey;			 /**< 20 */
	uint8_t info[ROCE_CM_SIDR_REP_INFO_LEN]; /**< 24: ClassPortInfo when redirecting */
	uint8_t private_data[ROCE_CM_SIDR_REP_PRIV_LEN]; /**< 96 */
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_sidr_rep_wire) == ROCE_MAD_DATA_LEN, "SIDR_REP is 232 bytes");

/** A whole CM MAD as it sits after the DETH. */
struct roce_cm_mad {
	struct roce_mad_hdr hdr;
	union {
		uint8_t data[ROCE_MAD_DATA_LEN];
		struct roce_cm_req_wire req;
		struct roce_cm_mra_wire mra;
		struct roce_cm_rej_wire rej;
		struct roce_cm_rep_wire rep;
		struct roce_cm_rtu_wire rtu;
		struct roce_cm_dreq_wire dreq;
		struct roce_cm_drep_wire drep;
		struct roce_cm_sidr_req_wire sidr_req;
		struct roce_cm_sidr_rep_wire sidr_rep;
	};
} __rte_packed;
_Static_assert(sizeof(struct roce_cm_mad) == ROCE_MAD_LEN, "a CM MAD is 256 bytes");

/*
 * Sub-word field accessors. Each line below defines a typed pair:
 *   <type> roce_cm_<msg>_<field>(const struct <wire> *m)
 *   void roce_cm_<msg>_set_<field>(struct <wire> *m, <type> v)
 * The setter keeps every other bit of the word and drops the bits of v that do not fit
 * (tests/roce/test_cm_wire.c checks both against the IBA Byte[Bit] positions).
 * FIELD32 fields live in a big-endian 32-bit word, FIELD8 fields in one byte; shift counts from
 * the least significant bit.
 */
#define ROCE_CM_FIELD32(msg, field, wire, member, shift, width)                                    \
	_Static_assert((shift) + (width) <= 32 && (width) < 32, #msg "_" #field " fits");          \
	static inline uint32_t roce_cm_##msg##_##field(const struct wire *m)                       \
	{                                                                                          \
		return (rte_be_to_cpu_32(m->member) >> (shift)) & ((1u << (width)) - 1);           \
	}                                                                                          \
	static inline void roce_cm_##msg##_set_##field(struct wire *m, uint32_t v)                 \
	{                                                                                          \
		const uint32_t mask = ((1u << (width)) - 1) << (shift);                            \
                                                                                                   \
		m->member = rte_cpu_to_be_32((rte_be_to_cpu_32(m->member) & ~mask) |               \
					     ((v << (shift)) & mask));                             \
	}

#define ROCE_CM_FIELD8(msg, field, wire, member, shift, width)                                     \
	_Static_assert((shift) + (width) <= 8 && (width) < 8, #msg "_" #field " fits");            \
	static inline uint8_t roce_cm_##msg##_##field(const struct wire *m)                        \
	{                                                                                          \
		return (uint8_t)((m->member >> (shift)) & ((1u << (width)) - 1));                  \
	}                                                                                          \
	static inline void roce_cm_##msg##_set_##field(struct wire *m, uint8_t v)                  \
	{                                                                                          \
		const unsigned mask = ((1u << (width)) - 1) << (shift);                            \
                                                                                                   \
		m->member = (uint8_t)((m->member & ~mask) | (((unsigned)v << (shift)) & mask));    \
	}

/* REQ (Table 106) */
ROCE_CM_FIELD32(req, vendor_id, roce_cm_req_wire, vendor, 0, 24)
ROCE_CM_FIELD32(req, local_qpn, roce_cm_req_wire, qpn_rres, 8, 24)
ROCE_CM_FIELD32(req, responder_resources, roce_cm_req_wire, qpn_rres, 0, 8)
ROCE_CM_FIELD32(req, local_eecn, roce_cm_req_wire, eecn_idepth, 8, 24)
ROCE_CM_FIELD32(req, initiator_depth, roce_cm_req_wire, eecn_idepth, 0, 8)
ROCE_CM_FIELD32(req, remote_eecn, roce_cm_req_wire, reecn_flags, 8, 24)
ROCE_CM_FIELD32(req, remote_cm_resp_timeout, roce_cm_req_wire, reecn_flags, 3, 5)
ROCE_CM_FIELD32(req, transport_type, roce_cm_req_wire, reecn_flags, 1, 2)
ROCE_CM_FIELD32(req, e2e_flow_ctrl, roce_cm_req_wire, reecn_flags, 0, 1)
ROCE_CM_FIELD32(req, starting_psn, roce_cm_req_wire, psn_flags, 8, 24)
ROCE_CM_FIELD32(req, local_cm_resp_timeout, roce_cm_req_wire, psn_flags, 3, 5)
ROCE_CM_FIELD32(req, retry_count, roce_cm_req_wire, psn_flags, 0, 3)
ROCE_CM_FIELD8(req, path_mtu, roce_cm_req_wire, mtu_rdc_rnr, 4, 4)
ROCE_CM_FIELD8(req, rdc_exists, roce_cm_req_wire, mtu_rdc_rnr, 3, 1)
ROCE_CM_FIELD8(req, rnr_retry_count, roce_cm_req_wire, mtu_rdc_rnr, 0, 3)
ROCE_CM_FIELD8(req, max_cm_retries, roce_cm_req_wire, retries_srq_ext, 4, 4)
ROCE_CM_FIELD8(req, srq, roce_cm_req_wire, retries_srq_ext, 3, 1)
ROCE_CM_FIELD8(req, ext_transport_type, roce_cm_req_wire, retries_srq_ext, 0, 3)
/* REQ paths (Table 106, bytes 52-95 and 96-139) */
ROCE_CM_FIELD32(path, flow_label, roce_cm_path_wire, flow_rate, 12, 20)
ROCE_CM_FIELD32(path, packet_rate, roce_cm_path_wire, flow_rate, 0, 6)
ROCE_CM_FIELD8(path, sl, roce_cm_path_wire, sl_local, 4, 4)
ROCE_CM_FIELD8(path, subnet_local, roce_cm_path_wire, sl_local, 3, 1)
ROCE_CM_FIELD8(path, local_ack_timeout, roce_cm_path_wire, ack_timeout, 3, 5)
ROCE_CM_FIELD8(path, sap, roce_cm_path_wire, ack_timeout, 2, 1)
/* MRA (Table 107) */
ROCE_CM_FIELD8(mra, msg_mraed, roce_cm_mra_wire, msg_mraed, 6, 2)
ROCE_CM_FIELD8(mra, service_timeout, roce_cm_mra_wire, service_timeout, 3, 5)
/* REJ (Table 108) */
ROCE_CM_FIELD8(rej, msg_rejected, roce_cm_rej_wire, msg_rejected, 6, 2)
ROCE_CM_FIELD8(rej, ari_len, roce_cm_rej_wire, ari_len, 1, 7)
/* REP (Table 110) */
ROCE_CM_FIELD32(rep, local_qpn, roce_cm_rep_wire, qpn_vid, 8, 24)
ROCE_CM_FIELD32(rep, vendor_id_hi, roce_cm_rep_wire, qpn_vid, 0, 8)
ROCE_CM_FIELD32(rep, local_eecn, roce_cm_rep_wire, eecn_vid, 8, 24)
ROCE_CM_FIELD32(rep, vendor_id_mid, roce_cm_rep_wire, eecn_vid, 0, 8)
ROCE_CM_FIELD32(rep, starting_psn, roce_cm_rep_wire, psn_vid, 8, 24)
ROCE_CM_FIELD32(rep, vendor_id_lo, roce_cm_rep_wire, psn_vid, 0, 8)
ROCE_CM_FIELD8(rep, target_ack_delay, roce_cm_rep_wire, ack_fo_e2e, 3, 5)
ROCE_CM_FIELD8(rep, failover_accepted, roce_cm_rep_wire, ack_fo_e2e, 1, 2)
ROCE_CM_FIELD8(rep, e2e_flow_ctrl, roce_cm_rep_wire, ack_fo_e2e, 0, 1)
ROCE_CM_FIELD8(rep, rnr_retry_count, roce_cm_rep_wire, rnr_srq, 5, 3)
ROCE_CM_FIELD8(rep, srq, roce_cm_rep_wire, rnr_srq, 4, 1)
/* DREQ (Table 112) */
ROCE_CM_FIELD32(dreq, remote_qpn, roce_cm_dreq_wire, remote_qpn, 8, 24)
/* SIDR_REP (Table 120) */
ROCE_CM_FIELD32(sidr_rep, qpn, roce_cm_sidr_rep_wire, qpn, 8, 24)

#undef ROCE_CM_FIELD32
#undef ROCE_CM_FIELD8

/* ---- host-order view ---- */

/** One path of a REQ. */
struct roce_cm_path {
	uint16_t local_lid;  /**< 0xffff on RoCE (the permissive LID) */
	uint16_t remote_lid; /**< 0xffff on RoCE */
	uint8_t local_gid[ROCE_GID_LEN];
	uint8_t remote_gid[ROCE_GID_LEN];
	uint32_t flow_label;	   /**< 20 bits */
	uint8_t packet_rate;	   /**< 6 bits, PathRecord Rate code (2 = 2.5 Gb/s, 3 = 10, ...) */
	uint8_t traffic_class;	   /**< 8 bits */
	uint8_t hop_limit;	   /**< 8 bits */
	uint8_t sl;		   /**< 4 bits */
	bool subnet_local;	   /**< the remote port is in our subnet */
	uint8_t local_ack_timeout; /**< 5 bits: 4.096 us * 2^n */
};

/** REQ. */
struct roce_cm_req {
	uint32_t local_comm_id;
	uint32_t vendor_id; /**< 24 bits, ECE; 0 when unused */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;		/**< 24 bits */
	uint8_t responder_resources;	/**< READ/atomics the requester accepts in flight */
	uint32_t local_eecn;		/**< 24 bits (RD only) */
	uint8_t initiator_depth;	/**< READ/atomics the requester issues in flight */
	uint32_t remote_eecn;		/**< 24 bits (RD only) */
	uint8_t remote_cm_resp_timeout; /**< 5 bits: 4.096 us * 2^n */
	uint8_t transport_type;		/**< 2 bits, enum roce_cm_transport */
	bool e2e_flow_ctrl;
	uint32_t starting_psn;	       /**< 24 bits: the requester's first send PSN */
	uint8_t local_cm_resp_timeout; /**< 5 bits */
	uint8_t retry_count;	       /**< 3 bits: transport retries (QP retry_cnt) */
	uint16_t pkey;
	uint8_t path_mtu; /**< 4 bits: enum roce_mtu code (1=256 ... 5=4096), not checked here */
	bool rdc_exists;
	uint8_t rnr_retry_count; /**< 3 bits, 7 = infinite */
	uint8_t max_cm_retries;	 /**< 4 bits */
	bool srq;
	uint8_t ext_transport_type; /**< 3 bits, 1 = XRC with transport_type 3 */
	struct roce_cm_path prim;
	struct roce_cm_path alt; /**< all zero when there is no alternate path */
	bool sap_supported;	 /**< alternate path byte 139 bit 2 */
	uint8_t private_data[ROCE_CM_REQ_PRIV_LEN];
};

/** MRA. */
struct roce_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;	 /**< enum roce_cm_mra_msg */
	uint8_t service_timeout; /**< 5 bits: 4.096 us * 2^n */
	uint8_t private_data[ROCE_CM_MRA_PRIV_LEN];
};

/** REJ. */
struct roce_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected; /**< enum roce_cm_rej_msg */
	uint8_t ari_len;      /**< 0-72 bytes of ari[] used */
	uint16_t reason;      /**< enum roce_cm_rej_reason (other codes pass through) */
	uint8_t ari[ROCE_CM_REJ_ARI_LEN];
	uint8_t private_data[ROCE_CM_REJ_PRIV_LEN];
};

/** REP. */
struct roce_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;	     /**< 24 bits */
	uint32_t local_eecn;	     /**< 24 bits */
	uint32_t starting_psn;	     /**< 24 bits: the responder's first send PSN */
	uint32_t vendor_id;	     /**< 24 bits, ECE */
	uint8_t responder_resources; /**< READ/atomics the replier accepts in flight */
	uint8_t initiator_depth;     /**< READ/atomics the replier issues in flight */
	uint8_t target_ack_delay;    /**< 5 bits */
	uint8_t failover_accepted;   /**< 2 bits */
	bool e2e_flow_ctrl;
	uint8_t rnr_retry_count; /**< 3 bits */
	bool srq;
	uint64_t local_ca_guid;
	uint8_t private_data[ROCE_CM_REP_PRIV_LEN];
};

/** RTU. */
struct roce_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_RTU_PRIV_LEN];
};

/** DREQ. */
struct roce_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn; /**< 24 bits: the QP at the receiver of the DREQ */
	uint8_t private_data[ROCE_CM_DREQ_PRIV_LEN];
};

/** DREP. */
struct roce_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_DREP_PRIV_LEN];
};

/** SIDR_REQ. */
struct roce_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[ROCE_CM_SIDR_REQ_PRIV_LEN];
};

/** SIDR_REP. */
struct roce_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;	  /**< enum roce_cm_sidr_status */
	uint8_t info_len; /**< 0-72 bytes of class_port_info[] used */
	uint32_t qpn;	  /**< 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t class_port_info[ROCE_CM_SIDR_REP_INFO_LEN]; /**< additional information */
	uint8_t private_data[ROCE_CM_SIDR_REP_PRIV_LEN];
};

/** A decoded CM MAD: the header fields that vary, and the message named by attr_id. */
struct roce_cm_msg {
	uint8_t method;	   /**< ROCE_MAD_METHOD_SEND for every message here */
	uint16_t status;   /**< MAD status, 0 in CM messages */
	uint64_t tid;	   /**< transaction ID */
	uint16_t attr_id;  /**< enum roce_cm_attr: which member of u is valid */
	uint32_t attr_mod; /**< attribute modifier, 0 in CM messages */
	union {
		struct roce_cm_req req;
		struct roce_cm_mra mra;
		struct roce_cm_rej rej;
		struct roce_cm_rep rep;
		struct roce_cm_rtu rtu;
		struct roce_cm_dreq dreq;
		struct roce_cm_drep drep;
		struct roce_cm_sidr_req sidr_req;
		struct roce_cm_sidr_rep sidr_rep;
	} u;
};

/**
 * Decode a CM MAD (the UD payload after the DETH).
 *
 * Limits: reads the first ROCE_MAD_LEN bytes of @p mad and nothing else. It checks @p len
 * against that once, and every field sits at a fixed offset below it (the wire structs'
 * sizes are pinned). Bytes after the 256th are ignored. Reserved bits are ignored, as IBA
 * asks of receivers. The header's status, class-specific field and attribute modifier are
 * not checked.
 *
 * Sanity checks, in this order:
 * - at least 256 bytes, base version 1, class CM (0x07), class version 2, else -EPROTO;
 * - method Send with attribute REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ or SIDR_REP,
 *   else -EOPNOTSUPP. That covers ClassPortInfo, LAP, APR, unknown attributes, any other
 *   method, and responses;
 * - fields that would make the message unreadable, else -EBADMSG: a REJ RejectInfoLength or
 *   SIDR_REP AdditionalInformationLength above 72, a MessageREJected or MessageMRAed of 3
 *   (reserved).
 * Values that are legal on the wire but unacceptable to a CM (an unknown path MTU code, a
 * transport type we do not serve, QPN 0) are decoded as they are. The CM answers them
 * with a REJ that carries the right reason, which it could not send if decoding had failed.
 *
 * @param mad  the MAD bytes; need not be aligned
 * @param len  bytes available at @p mad
 * @param out  filled on success (zeroed first); on failure its contents are unspecified
 * @return 0, -EINVAL (@p mad or @p out NULL), -EPROTO, -EOPNOTSUPP or -EBADMSG.
 */
int roce_cm_decode(const void *mad, size_t len, struct roce_cm_msg *out);

/**
 * Encode @p msg as a CM MAD: base version 1, class CM, class version 2, the header fields
 * of @p msg, the message of @p msg->attr_id, and zeros in every reserved bit.
 * Whatever roce_cm_decode() returns, this writes back byte for byte, provided the sender
 * kept its reserved bits zero.
 *
 * @param msg  message to encode; attr_id picks the member of msg->u
 * @param mad  destination, written with exactly ROCE_MAD_LEN bytes on success, untouched
 *             on failure
 * @param len  room at @p mad
 * @return ROCE_MAD_LEN, or -EINVAL when @p len < ROCE_MAD_LEN, a pointer is NULL, attr_id
 *         is not one roce_cm_decode() accepts, or a field is too wide for its wire field (a
 *         QPN or PSN above 24 bits, a 5-bit timeout above 31, ...). A value the decoder
 *         refuses with -EBADMSG (ARI length above 72, ...) is also -EINVAL here.
 */
int roce_cm_encode(const struct roce_cm_msg *msg, void *mad, size_t len);

/**
 * The MAD status the CM agent owes for this MAD's header (IBA 13.4.7):
 * - 0 when roce_cm_decode() would get past the header checks (Send of a message it knows),
 *   and when the MAD cannot be answered at all (shorter than a header, base version not 1);
 * - ROCE_MAD_STATUS_BAD_VERSION for a CM MAD whose class version is not 2;
 * - ROCE_MAD_STATUS_METHOD_UNSUPP for a method other than Get, Set or Send;
 * - ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP for a Get or Set (droce's CM has no attribute to
 *   get or set, ClassPortInfo included), a Send of an attribute the CM does not handle
 *   (ClassPortInfo, LAP, APR, unknown IDs), and a MAD of another management class.
 * Linux's ib_mad answers every unmatched Get/Set with 0x000c.
 */
uint16_t roce_cm_mad_status(const void *mad, size_t len);

/**
 * Build the error response a MAD receiver owes for a request it cannot serve.
 *
 * The rule (IBA 13.4.9, and Linux ib_mad's generate_unmatched_resp()): only the request
 * methods that solicit a response, Get and Set, are answered. The answer is a copy of the
 * request with method GetResp (0x81) and @p status, sent back to the requester's QP and
 * GID with the same TID. A Send (every CM message), a Trap, a Report and any response
 * (R bit set) is never answered, because its sender waits for no response. Such MADs are
 * dropped silently, and this function returns 0. So is a MAD whose base version is not 1:
 * its header cannot be trusted (Linux validate_mad() drops it as well).
 *
 * @param req       the received MAD
 * @param len       its length; at least ROCE_MAD_HDR_LEN for anything to be answered
 * @param status    non-zero ROCE_MAD_STATUS_* value, e.g. from roce_cm_mad_status()
 * @param resp      where the answer goes (ROCE_MAD_LEN bytes)
 * @param resp_len  room at @p resp
 * @return ROCE_MAD_LEN (send @p resp), 0 (send nothing), or -EINVAL (NULL pointer,
 *         @p status 0, or @p resp_len < ROCE_MAD_LEN).
 */
int roce_mad_error_resp(const void *req, size_t len, uint16_t status, void *resp, size_t resp_len);

/* ---- RDMA IP CM service (IBTA Annex A11; Linux cma.c, librdmacm) ---- */

/** rdma_cm port spaces: bits 31:16 of the service ID (bits 63:32 are 0). */
enum roce_rdma_ps {
	ROCE_RDMA_PS_IPOIB = 0x0002,
	ROCE_RDMA_PS_TCP = 0x0106, /**< RC connections (rdma_connect) */
	ROCE_RDMA_PS_UDP = 0x0111, /**< UD, resolved through SIDR */
	ROCE_RDMA_PS_IB = 0x013f,  /**< native IB addressing */
};

#define ROCE_CMA_HDR_LEN 36 /**< the IP CM header at the start of private data */
#define ROCE_CMA_VERSION 0x00

/** The IP CM header as it sits in REQ/SIDR_REQ private data (Annex A11; Linux cma_hdr). */
struct roce_cma_hdr_wire {
	uint8_t cma_version;  /**< MajV(7:4) MinV(3:0): 0x00 */
	uint8_t ip_version;   /**< IPVer(7:4) resv(3:0): 4 or 6 */
	rte_be16_t port;      /**< the requester's source port */
	uint8_t src_addr[16]; /**< IPv6, or 12 zero bytes and the IPv4 address */
	uint8_t dst_addr[16];
} __rte_packed;
_Static_assert(sizeof(struct roce_cma_hdr_wire) == ROCE_CMA_HDR_LEN, "cma header is 36 bytes");

/** The IP CM header, decoded. */
struct roce_cma_hdr {
	uint8_t cma_version;   /**< MajV << 4 | MinV */
	uint16_t src_port;     /**< host order */
	struct stk_ipaddr src; /**< the requester's address (family 4 or 6) */
	struct stk_ipaddr dst; /**< the address it connects to */
};

/**
 * Read the IP CM header at the start of @p priv.
 * Limits: reads ROCE_CMA_HDR_LEN bytes, only after checking @p len; the 12 bytes in front
 * of an IPv4 address are ignored (Linux writes zeros).
 * @return 0, -EINVAL (NULL pointer, @p len < 36), -EPROTO (cma version not 0x00) or
 *         -EAFNOSUPPORT (IP version neither 4 nor 6).
 */
int roce_cma_hdr_decode(const void *priv, size_t len, struct roce_cma_hdr *out);

/**
 * Write the IP CM header (36 bytes) at the start of @p priv, as Linux does: version 0x00,
 * IPv4 addresses in the last 4 of 16 zero-padded bytes. Both addresses must have the same
 * family, 4 or 6.
 * @return ROCE_CMA_HDR_LEN, or -EINVAL (NULL pointer, @p len < 36, families differ or unset).
 */
int roce_cma_hdr_encode(const struct roce_cma_hdr *h, void *priv, size_t len);

/** The rdma_cm service ID for (port space, port): 0x0000000001060000 + port for TCP. */
static inline uint64_t roce_cma_service_id(enum roce_rdma_ps ps, uint16_t port)
{
	return (uint64_t)(uint16_t)ps << 16 | port;
}

/**
 * Split an rdma_cm service ID into port space and port.
 * @return 0, or -EINVAL when @p sid is not in one of the four port spaces above (bits
 *         63:32 not zero, or an unknown port space), which is how a CM tells an rdma_cm
 *         REQ (with an IP CM header in its private data) from a native one.
 */
int roce_cma_service_id_split(uint64_t sid, enum roce_rdma_ps *ps, uint16_t *port);

/* ---- GIDs of IP addresses (RoCEv2, IBTA Annex A17) ---- */

/**
 * The GID of an IP address: an IPv6 address as it is, IPv4 as ::ffff:a.b.c.d.
 * @return 0, or -EINVAL when @p ip has no family 4 or 6.
 */
int roce_gid_from_ip(const struct stk_ipaddr *ip, uint8_t gid[ROCE_GID_LEN]);

/** The IP address of a GID: family 4 when it is IPv4-mapped (::ffff:0:0/96), else 6. */
void roce_gid_to_ip(const uint8_t gid[ROCE_GID_LEN], struct stk_ipaddr *ip);

/** @return true when @p gid is an IPv4-mapped address. */
bool roce_gid_is_v4mapped(const uint8_t gid[ROCE_GID_LEN]);

#endif /* ROCE_CM_WIRE_H */
