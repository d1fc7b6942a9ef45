"""Datasets for π-CoT: PhantomWiki universes made by the real generator, and the multihop subsets.

    python eval/picot_data.py phantomwiki --seed 1 --size 50 --output data/pw-s-1
    python eval/picot_data.py multihop --dataset 2wiki --output data/2wiki   # from ../shared/data/multihop

PhantomWiki (the ``phantom-wiki`` package, 1.0.3) needs Python >= 3.12 and SWI-Prolog, while this project
runs on 3.11, so the generator runs in a side virtualenv that this script creates on first use
(``$LOGICAL_PYSERINI_HOME/phantomwiki-venv``, default ``~/.cache/logical_pyserini``) from a 3.12
interpreter found on PATH, through pyenv (``pyenv prefix 3.12*``) or ``--python``.

Output (one folder):
  corpus.jsonl     {"id", "contents"}: one article per document (title line + templated article)
  questions.jsonl  {"qid", "question", "answers", "prolog": {"query": [goals in execution order],
                   "answer": target variable}, "hops", "aggregation", "type", "template"}
                   The generator stores goals last-step-first; they are reversed here.
  rules.pl         the universe's rule clauses (kinship definitions such as sibling/2), no facts.
  meta.json        generator version, command line and parameters.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logical_pyserini._io import atomic_write_text as write_text_atomic  # noqa: E402

PHANTOM_WIKI = "phantom-wiki==1.0.3"
# The seed's PW-S / PW-M configurations (appendix B.2): one family tree, easy relations.
PW_ARGS = ["--num-family-trees", "1", "--max-family-tree-depth", "20", "--question-depth", "20", "--easy-mode"]


def multihop_source() -> Path:
    """``../shared/data/multihop`` beside the checkout (or beside its parent, for worktrees)."""
    root = Path(__file__).resolve().parents[1]
    for base in (root.parent, root.parent.parent):
        if (base / "shared" / "data" / "multihop").is_dir():
            return base / "shared" / "data" / "multihop"
    return root.parent / "shared" / "data" / "multihop"


def home() -> Path:
    return Path(os.environ.get("LOGICAL_PYSERINI_HOME", Path.home() / ".cache" / "logical_pyserini"))


def find_python312(explicit: str | None) -> str:
    """A Python >= 3.12 interpreter, or exit with one clear line."""
    candidates = [explicit] if explicit else []
    candidates += [shutil.which(n) for n in ("python3.13", "python3.12")]
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            versions = subprocess.run([pyenv, "versions", "--bare"], capture_output=True, text=True, check=False).stdout
            for v in sorted(versions.split(), reverse=True):
                if re.fullmatch(r"3\.1[2-9](\.\d+)?", v):
                    prefix = subprocess.run([pyenv, "prefix", v], capture_output=True, text=True).stdout.strip()
                    candidates.append(str(Path(prefix) / "bin" / "python"))
        except OSError:
            pass
    for c in candidates:
        if not c or not Path(c).exists():
            continue
        out = subprocess.run([c, "-c", "import sys; print(sys.version_info >= (3, 12))"], capture_output=True, text=True)
        if out.stdout.strip() == "True":
            return c
    sys.exit("picot_data: no Python >= 3.12 interpreter found (PhantomWiki needs one): install one "
             "(e.g. `pyenv install 3.12` or `uv python install 3.12`) or pass --python PATH")


def side_env(python: str | None) -> Path:
    """The side virtualenv with phantom-wiki, created on first use."""
    venv = home() / "phantomwiki-venv"
    py = venv / "bin" / "python"
    marker = venv / ".installed-phantom-wiki-1.0.3"
    if marker.exists():
        return py
    if shutil.which("swipl") is None:
        sys.exit("picot_data: SWI-Prolog is missing (PhantomWiki needs it): apt-get install -y swi-prolog-nox")
    base = find_python312(python)
    print(f"picot_data: creating {venv} from {base} with {PHANTOM_WIKI}", file=sys.stderr)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", PHANTOM_WIKI])
    if r.returncode:
        sys.exit(f"picot_data: `pip install {PHANTOM_WIKI}` failed in {venv} (see above)")
    marker.touch()
    return py


_RULE_GOAL = re.compile(r"\s*(?:[a-z_]+\([A-Z][A-Za-z_0-9]*(?:, *[A-Z][A-Za-z_0-9]*)*\)|[a-z_]+\([A-Z]\w*, *\"[a-z]+\"\)|[A-Z]\w*\\=[A-Z]\w*)\s*")


def rule_clauses(facts_pl: str) -> list[str]:
    """The kinship rules of a generated ``facts.pl``: clauses ``head :- body`` whose head and
    body goals are plain relations over variables (library and helper clauses are dropped)."""
    out = []
    for clause in re.split(r"\.\s*\n", facts_pl):
        if ":-" not in clause or clause.lstrip().startswith(":-"):
            continue
        head, body = clause.split(":-", 1)
        if not re.fullmatch(r"\s*[a-z_]+\([A-Z]\w*(?:, *[A-Z]\w*)*\)\s*", head):
            continue
        goals = re.split(r",\s*\n", body.strip())
        if all(_RULE_GOAL.fullmatch(g) for g in goals):
            out.append(" ".join(clause.split()) + ".")
    return out


def convert_phantomwiki(raw: Path, out: Path, meta: dict) -> tuple[int, int]:
    articles = json.loads((raw / "articles.json").read_text(encoding="utf-8"))
    questions = json.loads((raw / "questions.json").read_text(encoding="utf-8"))
    corpus = "".join(json.dumps({"id": a["title"], "contents": a["article"].strip()}, ensure_ascii=False) + "\n"
                     for a in articles)
    lines = []
    for i, q in enumerate(questions):
        lines.append(json.dumps({
            "qid": str(q.get("id", i)),
            "question": q["question"],
            "answers": [str(a) for a in q["answer"]],
            "prolog": {"query": list(reversed(q["prolog"]["query"])), "answer": q["prolog"]["answer"]},
            "hops": int(q["difficulty"]),
            "aggregation": bool(q.get("is_aggregation_question", False)),
            "type": q.get("type"),
            "template": q.get("template"),
        }, ensure_ascii=False) + "\n")
    rules = rule_clauses((raw / "facts.pl").read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "corpus.jsonl", corpus)
    write_text_atomic(out / "questions.jsonl", "".join(lines))
    write_text_atomic(out / "rules.pl", "% Rules of the generated universe (facts.pl without facts).\n" + "\n".join(rules) + "\n")
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=2) + "\n")
    return len(articles), len(questions)


def cmd_phantomwiki(args: argparse.Namespace) -> None:
    py = side_env(args.python)
    with tempfile.TemporaryDirectory(prefix="phantomwiki-") as tmp:
        cmd = [str(py), "-m", "phantom_wiki", "--seed", str(args.seed), "--max-family-tree-size", str(args.size),
               *PW_ARGS, "--num-questions-per-type", str(args.questions_per_type), "--output-dir", tmp,
               "--article-format", "json", "--question-format", "json", "--quiet"]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            sys.stderr.write(r.stderr[-3000:])
            sys.exit(f"picot_data: the PhantomWiki generator failed (exit {r.returncode}): {' '.join(cmd)}")
        meta = {"generator": PHANTOM_WIKI, "seed": args.seed, "size": args.size,
                "questions_per_type": args.questions_per_type, "command": " ".join(cmd[1:]).replace(tmp, "OUT")}
        n_docs, n_q = convert_phantomwiki(Path(tmp), Path(args.output), meta)
    print(f"picot_data: {n_docs} articles, {n_q} questions -> {args.output}")


def cmd_multihop(args: argparse.Namespace) -> None:
    """Pools the passages of a HotpotQA/2Wiki dev subset into a corpus (the retrieval setting)."""
    from logical_pyserini.picot import load_multihop

    try:
        questions, corpus = load_multihop(Path(args.source), args.dataset)
    except (OSError, ValueError) as exc:
        sys.exit(f"picot_data: {exc}")
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "corpus.jsonl", "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus))
    write_text_atomic(out / "questions.jsonl", "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
    print(f"picot_data: {len(corpus)} passages, {len(questions)} questions -> {out}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pw = sub.add_parser("phantomwiki", help="generate a PhantomWiki universe with the real generator")
    pw.add_argument("--seed", type=int, required=True)
    pw.add_argument("--size", type=int, required=True, help="max family tree size (50 = PW-S, 500 = PW-M)")
    pw.add_argument("--questions-per-type", type=int, default=10, help="questions per template (seed: 10)")
    pw.add_argument("--python", help="a Python >= 3.12 interpreter for the side environment")
    pw.add_argument("--output", required=True)
    pw.set_defaults(func=cmd_phantomwiki)
    mh = sub.add_parser("multihop", help="HotpotQA / 2Wiki dev subset -> questions + pooled corpus")
    mh.add_argument("--dataset", choices=["hotpotqa", "2wiki"], required=True)
    mh.add_argument("--source", default=str(multihop_source()), help="folder with the multihop dev subsets")
    mh.add_argument("--output", required=True)
    mh.set_defaults(func=cmd_multihop)
    args = p.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
