#!/usr/bin/env python3
"""Write whamm-compiler/src/upstream_events.txt: upstream whamm's events of
the `wasm` provider in the order of its provider definitions, which is the
order in which upstream numbers the events a probe rule expands to (the
number before `_` in a report row's `probe_id`; see
whamm-compiler/src/numbering.rs).

usage: scripts/whamm_event_order.py PATH/TO/whamm > whamm-compiler/src/upstream_events.txt

Reads PATH/TO/whamm/providers (YAML, needs PyYAML): the files of
providers/packages/events, then providers/packages, then providers, joined
as upstream joins them (anchors defined before they are used).
"""
import glob
import os
import subprocess
import sys

import yaml


def main():
    root = sys.argv[1]
    texts = []
    for d in ("providers/packages/events", "providers/packages", "providers"):
        for f in sorted(glob.glob(os.path.join(root, d, "*.yaml")) + glob.glob(os.path.join(root, d, "*.yml"))):
            texts.append(open(f).read())
    doc = yaml.safe_load("\n".join(texts))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = ""
    print(f"# upstream whamm's `wasm` events in definition order (whamm {rev or '?'}),")
    print("# written by scripts/whamm_event_order.py. One line per event:")
    print("#   PACKAGE EVENT MODE...   a mode as NAME, or NAME=ALIAS when its rule part")
    print("#                           matches the alias; no modes: the event has none;")
    print("#   PACKAGE                 a package without events (wasm:begin)")
    for prov in doc["providers"]:
        if prov["name"] != "wasm":
            continue
        for pkg in prov["packages"]:
            events = pkg.get("events") or []
            if not events:
                print(pkg["name"])
            for ev in events:
                modes = []
                for m in ev.get("supported_modes") or []:
                    alias = m.get("alias_to")
                    modes.append(f"{m['name']}={alias}" if alias else m["name"])
                print(" ".join([pkg["name"], ev["name"]] + modes))


if __name__ == "__main__":
    main()
