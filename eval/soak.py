"""Soak: threads x kill/restart x hostile topics; counts wrong results, lost files and native crashes.

    python eval/soak.py --minutes 8          # writes eval/results/soak.md
    python eval/soak.py --quick              # ~1 minute, eval/results-quick/soak.md

Every search and index run is a separate ``python -m logical_pyserini.*``
process, so a native crash (SIGSEGV, abort, "Fatal Python error") shows up as
its exit status instead of taking the soak down.  One round:

1. a reference run (``--threads 1``) of the topics, 15% of them hostile
   (nesting far past the limit, NOT chains, unbalanced quotes/parentheses,
   NOT-only queries, unknown retriever prefixes, control characters, 5,000-leaf ORs);
2. runs with ``--threads`` 1/2/4 and random ``--batch-size``, each either left
   to finish or killed (SIGKILL / SIGTERM) at a random moment and then finished
   with ``--resume``; every finished run must equal the reference byte for
   byte, and after a kill the previous run file must be unchanged;
3. ``index --overwrite`` runs killed mid-build: the old index must still give
   the reference run;
4. a GC stress process: the eval-harness loop (batch_search with threads,
   bf16 torch matmuls, Java byte[] in reference cycles, ``gc.collect()``) for
   a fixed number of rounds; any native crash or a result that changes counts.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import ROOT, base_parser, command, header, log, md_table, write_lines

WORDS = ("museum art paris amsterdam science history london madrid painting sculpture canal bridge river "
         "station train music opera garden park castle church tower market food wine cheese bread").split()
NATIVE_MARKERS = ("Fatal Python error", "SIGSEGV", "hs_err_pid", "core dumped", "A fatal error has been detected")


@dataclass
class Tally:
    runs: int = 0
    kills: int = 0
    resumes: int = 0
    wrong: int = 0
    lost: int = 0
    native: int = 0
    index_kills: int = 0
    gc_rounds: int = 0
    notes: list[str] = field(default_factory=list)


def corpus(path: Path, n: int, rng: random.Random) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
            f.write(json.dumps({"id": f"d{i:05d}", "contents": text}) + "\n")


def topics(path: Path, n: int, rng: random.Random) -> int:
    hostile = [
        "(" * 400 + "museum" + ")" * 400,
        "NOT " * 300 + "art",
        'museum AND "unterminated',
        "museum AND (paris OR",
        "NOT art",
        "NOT (art OR paris)",
        "bogus:museum AND art",
        "museum AND \x1b[31mred\x1b[0m",
        " OR ".join(rng.choice(WORDS) for _ in range(5000)),
        "museum AND zzzzqqqq",
        "( ( ( ) ) )",
        "\u202e\u0000 AND art",
    ]
    lines, bad = [], 0
    for i in range(n):
        if i % 7 == 3:
            q = hostile[(i // 7) % len(hostile)]
            bad += 1
        else:
            a, b, c, d = rng.sample(WORDS, 4)
            q = rng.choice([f"{a} AND ({b} OR {c}) AND NOT {d}", f"{a} OR {b}", f'"{a} {b}" AND NOT {c}', a])
        lines.append(f"q{i}\t{q}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return bad


def run(args: list[str], env: dict, kill_after: float | None = None, kill_sig=signal.SIGKILL,
        watch: Path | None = None) -> tuple[int, str, bool]:
    """Run a module; optionally kill it ``kill_after`` s after ``watch`` appears. Returns (rc, stderr, killed)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", *args], stdout=subprocess.DEVNULL, stderr=err, env=env)
        killed = False
        if kill_after is not None:
            started = None
            while proc.poll() is None:
                if started is None and (watch is None or watch.exists() or any(watch.parent.glob(watch.name))):
                    started = time.time()
                if started is not None and time.time() - started >= kill_after:
                    proc.send_signal(kill_sig)
                    killed = True
                    break
                time.sleep(0.005)
        proc.wait()
        err.seek(0)
        return proc.returncode, err.read().decode("utf-8", "replace"), killed


def native_crash(rc: int, stderr: str, killed: bool) -> bool:
    if any(m in stderr for m in NATIVE_MARKERS):
        return True
    return rc in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS, 134, 139) and not killed


GC_STRESS = r"""
import gc, sys, numpy as np, torch
from logical_pyserini import LogicalLuceneSearcher
from logical_pyserini._bootstrap import ensure_pyserini
ensure_pyserini()
from jnius import autoclass
index, topics, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [l.split("\t", 1) for l in open(topics, encoding="utf-8").read().splitlines()]
good = [(q, t) for q, t in lines if q.startswith("q") and int(q[1:]) % 7 != 3][:60]
s = LogicalLuceneSearcher(index, leaf_hits=200)
String = autoclass("java.lang.String")
first = None
x = torch.randn(256, 256, dtype=torch.bfloat16)
for r in range(rounds):
    got = s.batch_search([t for _, t in good], [q for q, _ in good], k=50, threads=4)
    flat = {q: [(h.docid, h.score) for h in hits] for q, hits in got.items()}
    for _ in range(20):
        junk = {"b": String("payload " * 20).getBytes(), "y": x @ x}
        junk["self"] = junk
        del junk
    gc.collect()
    if first is None:
        first = flat
    elif flat != first:
        print("WRONG", r, flush=True)
print("DONE", rounds, flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__)
    p.add_argument("--minutes", type=float, default=8.0, help="Time budget of the kill/restart loop.")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    minutes = 0.75 if args.quick else args.minutes
    n_docs, n_topics, gc_rounds = (500, 70, 5) if args.quick else (3000, 210, 40)
    rng = random.Random(args.seed)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LOGICAL_PYSERINI_JAVA_HEAP": "1g"}
    work = Path(tempfile.mkdtemp(prefix="soak-", dir=args.data if Path(args.data).is_dir() else None))
    tally = Tally()
    try:
        docs, tops, index = work / "corpus.jsonl", work / "topics.tsv", work / "index"
        corpus(docs, n_docs, rng)
        hostile = topics(tops, n_topics, rng)
        rc, err, _ = run(["logical_pyserini.index", "--input", str(docs), "--index", str(index), "--quiet",
                          "--batch-size", "250"], env)
        assert rc == 0, err[-2000:]
        search = ["logical_pyserini.search", "--index", str(index), "--topics", str(tops), "--hits", "100",
                  "--leaf-hits", "200", "--quiet"]
        reference = work / "reference.txt"
        ref_rc, err, _ = run([*search, "--output", str(reference)], env)
        tally.runs += 1
        if native_crash(ref_rc, err, False):
            tally.native += 1
        expected = reference.read_bytes()
        log(f"reference: exit {ref_rc}, {len(expected.splitlines())} lines, {hostile} hostile topics")

        output = work / "run.txt"
        output.write_bytes(b"previous run\n")
        deadline = time.time() + 60 * minutes
        while time.time() < deadline:
            threads, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 32])
            mode = rng.choice(["clean", "kill9", "term"])
            before = output.read_bytes()
            cmd = [*search, "--output", str(output), "--threads", str(threads), "--batch-size", str(batch)]
            if mode == "clean":
                rc, err, killed = run(cmd, env)
            else:
                sig = signal.SIGKILL if mode == "kill9" else signal.SIGTERM
                rc, err, killed = run(cmd, env, kill_after=rng.uniform(0.0, 1.5), kill_sig=sig,
                                      watch=output.with_name(output.name + ".partial"))
            tally.runs += 1
            if native_crash(rc, err, killed):
                tally.native += 1
                tally.notes.append(f"native crash: threads={threads} exit {rc}: {err[-300:]!r}")
            if killed and rc not in (0, 1):
                tally.kills += 1
                if output.read_bytes() != before:
                    tally.lost += 1
                    tally.notes.append(f"run file changed by a killed run (threads={threads}, {mode})")
                rc, err, _ = run([*cmd, "--resume"], env)
                tally.resumes += 1
                tally.runs += 1
                if native_crash(rc, err, False):
                    tally.native += 1
            if not output.exists():
                tally.lost += 1
                tally.notes.append(f"run file missing after threads={threads} {mode}")
                output.write_bytes(b"previous run\n")
            elif output.read_bytes() != expected or rc != ref_rc:
                tally.wrong += 1
                tally.notes.append(f"wrong run: threads={threads} batch={batch} {mode} exit {rc}")
            log(f"run {tally.runs}: threads={threads} batch={batch} {mode} exit {rc}; wrong={tally.wrong} "
                f"lost={tally.lost} native={tally.native}")

        # Kill index rebuilds: the old index must keep serving the reference run.
        for _ in range(1 if args.quick else 2):
            rc, err, killed = run(["logical_pyserini.index", "--input", str(docs), "--index", str(index),
                                   "--overwrite", "--quiet", "--batch-size", "50"], env,
                                  kill_after=rng.uniform(0.0, 2.0), watch=work / ".index.tmp-*")
            tally.index_kills += int(killed)
            if native_crash(rc, err, killed):
                tally.native += 1
            check = work / "after-index-kill.txt"
            rc, err, _ = run([*search, "--output", str(check)], env)
            tally.runs += 1
            if not index.is_dir() or not check.exists():
                tally.lost += 1
                tally.notes.append("index lost after a killed --overwrite")
            elif check.read_bytes() != expected:
                tally.wrong += 1
                tally.notes.append("wrong run after a killed index rebuild")

        # GC stress: the eval harness loop (threads, torch frames, Java byte[] in cycles, gc.collect()).
        with tempfile.TemporaryFile() as err:
            done = subprocess.run([sys.executable, "-c", GC_STRESS, str(index), str(tops), str(gc_rounds)],
                                  stdout=subprocess.PIPE, stderr=err, env=env, text=True)
            err.seek(0)
            gc_err = err.read().decode("utf-8", "replace")
        tally.gc_rounds = gc_rounds if "DONE" in done.stdout else 0
        if native_crash(done.returncode, gc_err, False) or "DONE" not in done.stdout:
            tally.native += 1
            tally.notes.append(f"GC stress exit {done.returncode}: {gc_err[-300:]!r}")
        tally.wrong += done.stdout.count("WRONG")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = header("Soak: threads x kill/restart x hostile topics", command(__file__, argv),
                   f"{n_docs} documents, {n_topics} topics ({hostile} hostile: nesting past the limit, NOT chains, "
                   "unbalanced input, NOT-only, unknown prefixes, control characters, a 5,000-leaf OR); "
                   f"{minutes:g} minutes of search runs with --threads 1/2/4, random --batch-size, each finished, "
                   "or killed (SIGKILL/SIGTERM at a random moment) and finished with --resume.")
    lines += md_table(["measure", "count"], [
        ["search runs (processes)", tally.runs],
        ["runs killed mid-write, then resumed", tally.kills],
        ["index --overwrite builds killed", tally.index_kills],
        ["GC-stress rounds (batch_search threads=4, bf16 torch, byte[] cycles, gc.collect)", tally.gc_rounds],
        ["**wrong results** (run differs from the 1-thread reference)", tally.wrong],
        ["**lost files** (run or index changed/missing after a kill)", tally.lost],
        ["**native crashes** (SIGSEGV/abort/Fatal Python error)", tally.native],
    ], align="lr")
    if tally.notes:
        lines += ["", "## Problems", ""] + [f"- {n}" for n in tally.notes[:50]]
    path = write_lines(Path(args.results) / "soak.md", lines)
    log(f"wrote {path}")
    return 1 if tally.wrong or tally.lost or tally.native else 0


if __name__ == "__main__":
    sys.exit(main())
