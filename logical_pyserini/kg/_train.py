"""``python -m logical_pyserini.kg train-embeddings``: train the ComplEx-N3 link predictor on a graph's train split.

Example::

    nice -n 19 python -m logical_pyserini.kg train-embeddings --data ../shared/data/nell-betae \\
        --rank 200 --epochs 12 --bf16

reads ``DATA/train.txt`` (training) and ``DATA/valid.txt`` (epoch selection, early stop), never the test
split, and writes ``$LOGICAL_PYSERINI_HOME/kg/<data>-complex.npz`` plus ``.json`` (or ``--output``).
``--resume FILE`` continues a saved model for ``--epochs`` more epochs (write it to a new ``--output`` so the
old file stays usable until the new one is better)::

    nice -n 19 python -m logical_pyserini.kg train-embeddings --data ../shared/data/nell-betae --bf16 \
        --resume ~/.cache/logical_pyserini/kg/nell-betae-complex.npz --epochs 10 \
        --output ~/.cache/logical_pyserini/kg/nell-betae-complex-long.npz
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path

from .._cli import HelpFormatter
from .._io import OutputError
from ._embedding import (
    EmbeddingError, LinkPredictor, TrainConfig, default_embedding_path, file_digest, train_complex,
)
from ._evaluate import _stats
from ._graph import GraphError, read_triples

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    d = TrainConfig()
    p = argparse.ArgumentParser(prog="python -m logical_pyserini.kg train-embeddings",
                                description=__doc__.split("\n")[0],
                                formatter_class=HelpFormatter)
    p.add_argument("--data", required=True, help="BetaE-format folder: train.txt (training), valid.txt (epoch "
                   "selection), stats.txt (sizes); test.txt is never read")
    p.add_argument("--output", help="embedding file (.npz; a FILE.json sidecar goes beside it) "
                   "(default: $LOGICAL_PYSERINI_HOME/kg/<data folder>-complex.npz)")
    p.add_argument("--resume", metavar="FILE", help="warm start: continue the factors (and Adagrad state) of a "
                   "saved .npz trained on this graph, for --epochs more epochs; its history goes on in the sidecar")
    p.add_argument("--rank", type=int, default=None, help=f"ComplEx rank (complex dimensions) (default: {d.rank}, "
                   "or the --resume file's)")
    p.add_argument("--epochs", type=int, default=d.epochs, help="most epochs (the best one on valid is kept)")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="training triples per step")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate, help="Adagrad learning rate")
    p.add_argument("--regularisation", type=float, default=d.regularisation, help="N3 weight")
    p.add_argument("--valid-sample", type=int, default=d.valid_sample, help="valid triples scored after each epoch")
    p.add_argument("--patience", type=int, default=d.patience, help="stop after this many epochs without a better "
                   "valid MRR")
    p.add_argument("--bf16", action="store_true", help="bf16 autocast for the 1-vs-all matrix product")
    p.add_argument("--threads", type=int, default=d.threads, help="torch threads")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    data = Path(args.data)
    output = Path(args.output) if args.output else default_embedding_path(data)
    config = TrainConfig(rank=args.rank or TrainConfig.rank, epochs=args.epochs, batch_size=args.batch_size,
                         learning_rate=args.learning_rate, regularisation=args.regularisation,
                         valid_sample=args.valid_sample, patience=args.patience, bf16=args.bf16,
                         threads=args.threads, seed=args.seed)
    try:
        train = read_triples(data / "train.txt")
        valid = read_triples(data / "valid.txt") if (data / "valid.txt").exists() else None
        n_ent, n_rel = _stats(data)
        n_ent = n_ent or int(max(train[:, [0, 2]].max(), 0 if valid is None else valid[:, [0, 2]].max()) + 1)
        n_rel = n_rel or int(max(train[:, 1].max(), 0 if valid is None else valid[:, 1].max()) + 1)
        info = {"data": str(data.resolve()), "train_sha256": file_digest(data / "train.txt"),
                "valid_sha256": file_digest(data / "valid.txt") if valid is not None else None,
                "num_entities": n_ent, "num_relations": n_rel, "output": str(output)}
        start = None
        if args.resume:
            start = LinkPredictor.load(args.resume, n_ent, n_rel, optimizer=True)
            if args.rank is not None and args.rank != start.rank:
                raise EmbeddingError(f"{args.resume}: rank {start.rank}, but --rank {args.rank} was asked for; "
                                     "drop --rank to resume it")
            config.rank = start.rank
            start.info["output"] = str(Path(args.resume))
            if start.info.get("train_sha256") not in (None, info["train_sha256"]):
                logging.warning("%s was trained on another train.txt (sha %s, this one %s)", args.resume,
                                start.info["train_sha256"], info["train_sha256"])
        output.parent.mkdir(parents=True, exist_ok=True)
        # SIGTERM ends training like Ctrl-C: the best epoch so far is saved, not lost
        signal.signal(signal.SIGTERM, _interrupt)
        model = train_complex(train, n_ent, n_rel, config, valid=valid, progress=not args.quiet, info=info,
                              checkpoint=lambda best: best.save(output), start=start)
        model.save(output)
    except (GraphError, EmbeddingError, OutputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    i = model.info
    print(f"ComplEx rank {i['rank']}: best epoch {i['best_epoch']} of {i['epochs_run']}, valid filtered MRR "
          f"{i['valid_mrr']} (sample of {i['valid_sample']}), {i['seconds']} s; wrote {output} and {output}.json")
    return 0
