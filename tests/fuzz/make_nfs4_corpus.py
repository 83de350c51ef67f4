#!/usr/bin/env python3
"""Seed corpus for tests/fuzz/fuzz_nfs4_compound.c: COMPOUND4args built by hand from RFC 8881
§16.2.3 and §18 (the shapes Linux 6.1's client sends: EXCHANGE_ID with an implementation id,
CREATE_SESSION with AUTH_SYS callback parameters, SEQUENCE first), plus the dispatcher's error
cases (minor version 0, an undefined opcode, a 4.2 operation, arguments cut short), and one seed
per NFSv4.2 operation served (RFC 7862 §15: ALLOCATE, DEALLOCATE, SEEK, COPY, CLONE). The session
id of a seed cannot be known in advance: a run makes sessions of its own from the
EXCHANGE_ID/CREATE_SESSION seeds (client ids are the server's boot epoch and a counter).
Run from the repository root."""
import os
import struct

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)
H = lambda v: struct.pack("!Q", v)


def S(s):
    b = s.encode() if isinstance(s, str) else s
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


def compound(ops, minor=1, tag=""):
    return S(tag) + W(minor, len(ops)) + b"".join(ops)


def op(num, body=b""):
    return W(num) + body


CHAN = W(0, 1049620, 1049480, 7584, 8, 64, 0)
SEQ = op(53, b"\x01" * 16 + W(1, 0, 0, 0))
EXID = op(42, b"verf0001" + S("Linux NFSv4.1 client.example") + W(0x00000101, 0)
          + W(1) + S("kernel.org") + S("Linux 6.1.0 #1 SMP x86_64") + H(0) + W(0))
CSESS = op(43, H(1) + W(1, 3) + CHAN + CHAN + W(0x40000000)
           + W(2, 1) + W(0) + S("client") + W(0, 0, 0) + W(0))
GETATTR = op(9, W(3, 0x0010011a, 0x00b0a23a, 0))
# state: the harness turns session id 16 x 0x01 into its own session (the slot's next sequence
# id), and 12 x 0x02 into the stateid `other` of its open of f (fuzz_nfs4_compound.c)
HSEQ = lambda slot=0: op(53, b"\x01" * 16 + W(1, slot, slot, 0))
HSID = W(0) + b"\x02" * 12
CUR = W(1) + b"\0" * 12          # the current stateid
ANON = W(0) + b"\0" * 12
EXPORT = [op(24), op(15, S("tmp")), op(15, S("droce_fuzz_nfs4")), op(15, S("e"))]
F = EXPORT + [op(15, S("f"))]
MODE = W(2, 0, 0x2) + S(W(0o644))  # fattr4: mode
OPEN_CREATE = op(18, W(0, 3, 0) + H(0) + S("seed-owner") + W(1, 0) + MODE + W(0) + S("n1"))
OPEN_EXCL = op(18, W(0, 2, 0) + H(0) + S("seed-owner") + W(1, 3) + b"exclverf" + MODE + W(0)
               + S("n2"))
LOCK_NEW = op(12, W(2, 0) + H(0) + H(100) + W(1) + W(0) + HSID + W(0) + H(0) + S("lock-owner"))
DSID = W(1) + b"\x03" * 12
# LOCK of [0, 100) of type t by a new lock-owner from the harness's open
LOCKW = lambda t, owner: op(12, W(t, 0) + H(0) + H(100) + W(1) + W(0) + HSID + W(0) + H(0)
                            + S(owner))
# OPEN g (create UNCHECKED4) for reading, wanting a read delegation
DELEG_OPEN = op(18, W(0, 0x0101, 0) + H(0) + S("deleg-owner") + W(1, 0) + MODE + W(0) + S("g"))
seeds = {
    "exchange_id": compound([EXID]),
    "create_session": compound([CSESS]),
    "destroy_session": compound([op(44, b"\x01" * 16)]),
    "destroy_clientid": compound([op(57, H(1))]),
    "bind_conn": compound([op(41, b"\x01" * 16 + W(3, 0))]),
    "sequence_getattr": compound([SEQ, op(24), op(10), GETATTR]),
    "sequence_lookup": compound([SEQ, op(24), op(15, S("srv")), op(16), op(32), op(31),
                                 op(3, W(0x3f)), op(52, W(0))], tag="mount"),
    "reclaim_complete": compound([SEQ, op(58, W(0))]),
    "putfh": compound([SEQ, op(22, S(b"\x80p4\x00" + b"\x00" * 8)), op(9, W(1, 1))]),
    "minor0": compound([op(24)], minor=0),
    "illegal": compound([op(10044)]),
    "minor2_seek": compound([SEQ, op(69, b"\0" * 28)], minor=2),
    "cut_short": compound([SEQ, op(15, W(200) + b"aaaa")]),
    "no_session": compound([op(24), op(10)]),
    # with the harness's session and open (stateful: the ops after SEQUENCE run)
    "state_open_create": compound([HSEQ()] + EXPORT + [OPEN_CREATE, op(10),
                                  op(38, CUR + H(0) + W(2) + S("seed data")),
                                  op(25, CUR + H(0) + W(100)), op(4, W(0) + CUR)]),
    "state_open_excl": compound([HSEQ(1)] + EXPORT + [OPEN_EXCL, op(10), GETATTR]),
    "state_read": compound([HSEQ()] + F + [op(25, HSID + H(0) + W(4096))]),
    "state_write": compound([HSEQ(2)] + F + [op(38, HSID + H(3) + W(0) + S("xyz")),
                                             op(5, H(0) + W(0)), GETATTR]),
    "state_lock": compound([HSEQ()] + F + [LOCK_NEW, op(13, W(2) + H(200) + H(10) + H(0)
                                                        + S("other")),
                                           op(14, W(2, 0) + CUR + H(0) + H(100)),
                                           op(45, CUR)]),
    "state_test_free": compound([HSEQ(), op(55, W(3) + HSID + ANON + CUR), op(45, HSID)]),
    "state_downgrade": compound([HSEQ()] + F + [op(21, HSID + W(0, 1, 0)), op(4, W(0) + CUR)]),
    "state_setattr": compound([HSEQ()] + F + [op(34, ANON + MODE), op(37, MODE), op(17, W(2, 0, 0x2) + S(W(0o600))),
                                              op(34, HSID + W(1, 0x10) + S(H(3)))]),
    "state_dirs": compound([HSEQ()] + EXPORT + [op(6, W(2) + S("dd") + W(0) + S(b"")), op(10),
                                                op(6, W(5) + S("target") + S("sl") + W(0)
                                                   + S(b"")), op(27)]
                           + EXPORT + [op(26, H(0) + b"\0" * 8 + W(512, 4096)
                                          + W(2, 0x0010011a, 0x00b0a23a)),
                                       op(28, S("dd"))]),
    "state_rename_link": compound([HSEQ()] + F + [op(32)] + EXPORT
                                  + [op(11, S("f2")), op(32), op(29, S("f2") + S("f3")),
                                     op(28, S("f3"))]),
    # NFSv4.2 (RFC 7862 §15), minor version 2: ALLOCATE, DEALLOCATE, SEEK on the harness's
    # open of f; COPY and CLONE from f (SAVED_FH, its stateid) to a new file (OPEN's stateid)
    "state_allocate": compound([HSEQ()] + F + [op(59, HSID + H(0) + H(8192)), op(9, W(2, 0, 0x2))],
                               minor=2),
    "state_deallocate": compound([HSEQ()] + F + [op(62, HSID + H(4096) + H(4096)),
                                                 op(69, HSID + H(0) + W(1))], minor=2),
    "state_seek": compound([HSEQ()] + F + [op(69, HSID + H(0) + W(0)),
                                           op(69, ANON + H(1 << 40) + W(1))], minor=2),
    "state_copy": compound([HSEQ()] + F + [op(32)] + EXPORT
                           + [OPEN_CREATE, op(60, HSID + CUR + H(0) + H(0) + H(0) + W(1, 0, 0)),
                              op(60, HSID + CUR + H(0) + H(0) + H(0) + W(1, 1)
                                 + W(1, 3) + S("tcp") + S("192.0.2.1.8.1"))], minor=2),
    "state_clone": compound([HSEQ()] + F + [op(32)] + EXPORT
                            + [OPEN_CREATE, op(71, HSID + CUR + H(0) + H(0) + H(0))], minor=2),
    "state_secinfo_verify": compound([HSEQ()] + EXPORT + [op(33, S("f")), op(23), op(10)]),
    # read delegations (RFC 8881 §18.16, §18.6, §10.4): the harness session has a backchannel;
    # 12 x 0x03 is a delegation stateid's `other`; a last byte that is odd makes the harness
    # break g's delegations as an NFSv3 WRITE, its bits 1-2 choosing the recall's answer
    "deleg_open_g": compound([HSEQ()] + EXPORT + [DELEG_OPEN, op(10)]),
    "deleg_return_g": compound([HSEQ()] + EXPORT + [op(15, S("g")), op(8, DSID)]),
    "deleg_test_free": compound([HSEQ(), op(55, W(1) + DSID), op(45, DSID)]),
    "deleg_claim_cur_fh": compound([HSEQ()] + EXPORT + [op(15, S("g")), op(
        18, W(0, 1, 0) + H(0) + S("cur-owner") + W(0) + W(6) + DSID)]),
    "deleg_break_ok": compound([HSEQ()] + EXPORT + [DELEG_OPEN]) + b"\x01",
    "deleg_break_delay": compound([HSEQ()] + EXPORT + [DELEG_OPEN]) + b"\x03",
    "deleg_break_junk": compound([HSEQ()] + EXPORT + [DELEG_OPEN]) + b"\x05",
    "deleg_break_notconn": compound([HSEQ()] + EXPORT + [DELEG_OPEN]) + b"\x07",
    "backchannel_ctl": compound([HSEQ(), op(40, W(0x40000001) + W(1, 0))]),
    # a blocking LOCK denied to the harness client (it has a backchannel): CB_NOTIFY_LOCK once
    # a lock on f goes (RFC 8881 §20.11)
    "lock_wait": compound([HSEQ()] + F + [LOCKW(2, "lw1"), LOCKW(4, "lw2")]),
    "lock_wait_unlock": compound([HSEQ()] + F + [LOCKW(2, "lw3"), op(14, W(2, 0) + CUR + H(0)
                                                                     + H(100))]),
    "bind_conn_back": compound([op(41, b"\x01" * 16 + W(7, 0))]),
    # waiting for file work (the harness reads the last byte: bit 3 lets the compound wait,
    # bit 4 keeps earlier waiting compounds waiting through this input): a READ that waits,
    # a WRITE then GETATTR that waits, a COMMIT that waits while the next input runs, and a
    # READ on the same slot that is then DELAY (the trailing word is the control byte)
    "wait_read": compound([HSEQ()] + F + [op(25, HSID + H(0) + W(4096))]) + W(0x08),
    "wait_write_getattr": compound([HSEQ(1)] + F + [op(38, HSID + H(5) + W(0) + S("abc")),
                                                    GETATTR]) + W(0x08),
    "wait_commit": compound([HSEQ(2)] + F + [op(5, H(0) + W(0))]) + W(0x08),
    "wait_retry_delay": compound([HSEQ()] + F + [op(25, HSID + H(0) + W(100))]) + W(0, 0x10),
}
d = os.path.join("tests", "fuzz", "corpus", "nfs4_compound")
os.makedirs(d, exist_ok=True)
for name, b in seeds.items():
    open(os.path.join(d, name), "wb").write(b)
