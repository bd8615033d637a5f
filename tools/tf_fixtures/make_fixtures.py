"""Writes the TensorFlow fixtures under tests/fixtures/tf/<case>/.

    tools/tf_fixtures/setup_venv.sh
    tools/venv-tf/bin/python tools/tf_fixtures/make_fixtures.py [case ...]

With no case names every case is written, and the op table in
tests/fixtures/tf/README.md is brought up to date.  The cases are described in
that README.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import common  # noqa: E402

common.graph_mode()

import cases_gradients  # noqa: E402
import cases_inference  # noqa: E402
import cases_random  # noqa: E402
import cases_reductions  # noqa: E402
import cases_timing  # noqa: E402
import cases_train  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE_ROOT = os.path.join(REPO_ROOT, "tests", "fixtures", "tf")
README = os.path.join(FIXTURE_ROOT, "README.md")
OPS_BEGIN = "<!-- op table: written by make_fixtures.py -->"
OPS_END = "<!-- end of op table -->"

ALL_CASES = (cases_inference.CASES + cases_train.CASES + cases_timing.CASES +
             cases_gradients.CASES + cases_random.CASES + cases_reductions.CASES)


def case_ops(name):
    with open(os.path.join(FIXTURE_ROOT, name, "manifest.json")) as f:
        return json.load(f)["ops"]


def op_union(names):
    """{op type: [cases using it]} over the cases' manifests."""
    users = collections.defaultdict(list)
    for name in names:
        for op in case_ops(name):
            users[op].append(name)
    return collections.OrderedDict(sorted(users.items()))


def op_table(union):
    lines = ["| op | cases | which |", "|---|---|---|"]
    for op, names in union.items():
        lines.append("| %s | %d | %s |" % (op, len(names), ", ".join(names)))
    return "\n".join(lines)


def update_readme(union):
    with open(README) as f:
        text = f.read()
    begin, end = text.index(OPS_BEGIN), text.index(OPS_END)
    table = "%s\n\n%d op types over all cases.\n\n%s\n\n" % (OPS_BEGIN, len(union), op_table(union))
    with open(README, "w") as f:
        f.write(text[:begin] + table + text[end:])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--noise", action="store_true",
                        help="write nothing; for each training case print how far "
                             "float32 results lie from the same graph in float64")
    parser.add_argument("--smoke", action="store_true",
                        help="write nothing; run init and two training steps of each "
                             "timing graph (resnet50_train, bert_train) from its files")
    args = parser.parse_args()
    if args.smoke:
        for name in args.cases or [fn.__name__ for fn in cases_timing.CASES]:
            for seconds, loss in cases_timing.smoke(FIXTURE_ROOT, name):
                print("%-16s step %.1f s  loss %.4f" % (name, seconds, loss), flush=True)
        return
    if args.noise:
        for name in args.cases or list(cases_train.TRAINING):
            for tensor, abs_diff, share in cases_train.noise(name):
                print("%-24s %-40s |f32-f64| %.3g  share of tolerance %.3g"
                      % (name, tensor, abs_diff, share))
        return

    by_name = collections.OrderedDict((fn.__name__, fn) for fn in ALL_CASES)
    unknown = [c for c in args.cases if c not in by_name]
    if unknown:
        parser.error("unknown cases %s; known: %s" % (unknown, list(by_name)))
    chosen = args.cases or list(by_name)

    os.makedirs(FIXTURE_ROOT, exist_ok=True)
    for name in chosen:
        case = by_name[name](FIXTURE_ROOT)
        size = case.finish()
        print("%-24s %8d bytes  %3d op types" % (name, size, len(case.ops)), flush=True)

    written = [n for n in by_name if os.path.exists(os.path.join(FIXTURE_ROOT, n, "manifest.json"))]
    union = op_union(written)
    print("\nop types over %d cases (%d types):" % (len(written), len(union)))
    for op, names in union.items():
        print("  %-36s %2d  %s" % (op, len(names), " ".join(names)))
    if not args.cases and os.path.exists(README):
        update_readme(union)


if __name__ == "__main__":
    main()
