#!/usr/bin/env python3
"""Whether two result trees hold the same figures: every summary.json under
OLD against the one at the same place under NEW, value by value, leaving out
what a rerun may change without the model changing (wall and CPU seconds,
memory, the version, the resolved config). Prints each difference (the first
20) and a count; exits 1 when any differs or is missing. Used to show a
refactor bit-identical:

  tools/same_results.py OLD_DIR NEW_DIR
"""
import glob
import json
import os
import sys

SKIP = (".config", "seconds", "wall", "memory", "rss", "version")


def flat(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from flat(v, path + "." + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from flat(v, path + "." + str(i))
    else:
        yield path, obj


def main(old, new):
    files = differences = 0
    for fa in sorted(glob.glob(os.path.join(old, "**", "summary.json"), recursive=True)):
        fb = os.path.join(new, os.path.relpath(fa, old))
        if not os.path.exists(fb):
            print("missing", fb)
            differences += 1
            continue
        files += 1
        with open(fa) as a, open(fb) as b:
            da, db = dict(flat(json.load(a))), dict(flat(json.load(b)))
        for key in sorted(set(da) | set(db)):
            if any(s in key for s in SKIP) or da.get(key) == db.get(key):
                continue
            differences += 1
            if differences <= 20:
                print(os.path.relpath(fa, old), key, da.get(key), db.get(key))
    print(f"{files} files, {differences} differences")
    return 1 if differences or files == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
