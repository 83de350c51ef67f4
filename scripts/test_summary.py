#!/usr/bin/env python3
"""Print 'N passed, N failed, N skipped' from one or more meson testlog.json files.

Before that line, every test that did not pass is named with its build, result and duration,
followed by the last lines of its output, so that a log cut to its tail still says what
failed and why. Exit status 1 when any test failed (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS) or
no test ran."""
import json
import os
import sys

TAIL = 40  # output lines kept per failed test

passed = failed = skipped = 0
bad = []
for path in sys.argv[1:]:
    build = os.path.basename(os.path.dirname(os.path.dirname(path))) or path
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"cannot read {path}: {e}", file=sys.stderr)
        bad.append((build, path, "MISSING", 0.0, str(e)))
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            bad.append((build, t.get("name", "?"), r, t.get("duration") or 0.0,
                        (t.get("stdout") or "") + (t.get("stderr") or "")))
for build, name, r, dur, out in bad:
    print(f"--- {build}: {name}: {r} after {dur:.1f} s")
    lines = out.rstrip("\n").splitlines()
    notok = [ln for ln in lines[:-TAIL] if "not ok" in ln][-20:]
    if notok:
        print("    its test points that did not pass:")
        for ln in notok:
            print(f"    {ln}")
    print("    last lines of its output:")
    for ln in lines[-TAIL:]:
        print(f"    {ln}")
if bad:
    print("not passed: " + ", ".join(f"{b}:{n} ({r})" for b, n, r, _, _ in bad))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
