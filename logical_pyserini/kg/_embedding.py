"""Learned link prediction for the ``scored`` executor: ComplEx with N3 regularisation, as CQD uses.

Training (torch, imported lazily) is 1-vs-all: for every training triple
``(h, r, t)`` the model scores ``(h, r, e)`` for every entity ``e`` in one
matrix product and minimises the cross-entropy of ``t`` among them, plus the
weighted N3 norm of the factors (Lacroix et al., 2018).  BetaE's graphs
already hold every relation with its inverse (ids ``2k``/``2k+1``), so
training on tails covers the reciprocal direction.  Epochs are selected on
held-out edges (``valid.txt``): the saved factors are those of the epoch with
the best filtered MRR on them.

The trained factors are a ``.npz`` file (``entities``, ``relations``; real
parts then imaginary parts along the last axis; ``adagrad_entities`` /
``adagrad_relations``, the optimiser's accumulators, so that training can be
resumed) with a JSON sidecar ``FILE.json`` (rank, epochs, data paths and
digests, valid MRR, seconds, per-epoch history).  Scoring at query time is
numpy only and never reads the accumulators.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .._io import atomic_write_bytes, atomic_write_text
from ..models import home

__all__ = ["EmbeddingError", "LinkPredictor", "TRAIN_COMMAND", "TrainConfig", "default_embedding_path",
           "train_complex"]

logger = logging.getLogger(__name__)

#: What creates the default embedding file (quoted by every error about a missing one).
TRAIN_COMMAND = "python -m logical_pyserini.kg train-embeddings --data DATA"


class EmbeddingError(ValueError):
    """A missing or malformed embedding file (the message names the file and the command that creates it)."""


def default_embedding_path(data: str | os.PathLike) -> Path:
    """``$LOGICAL_PYSERINI_HOME/kg/<data folder name>-complex.npz``."""
    return home() / "kg" / f"{Path(data).resolve().name}-complex.npz"


def file_digest(path: str | os.PathLike) -> str:
    """sha256 of a file (hex, first 16 characters): which data the factors were trained on."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@dataclass
class LinkPredictor:
    """Trained ComplEx factors: ``score(h, r, t) = Re(<e_h, w_r, conj(e_t)>)``.

    Attributes
    ----------
    entities : numpy.ndarray
        ``(num_entities, 2 * rank)`` float32, real parts then imaginary parts.
    relations : numpy.ndarray
        ``(num_relations, 2 * rank)`` float32.
    info : dict
        The sidecar (rank, epochs, data, valid MRR, ...).
    optimizer : dict, optional
        Adagrad's squared-gradient sums ``{"entities": ..., "relations": ...}`` (same shapes as the
        factors) of the saved epoch; present after training and when loaded with ``optimizer=True``.
    """

    entities: np.ndarray
    relations: np.ndarray
    info: dict = field(default_factory=dict)
    optimizer: dict | None = field(default=None, repr=False, compare=False)

    @property
    def rank(self) -> int:
        return self.entities.shape[1] // 2

    @property
    def num_entities(self) -> int:
        return self.entities.shape[0]

    def queries(self, heads: np.ndarray, relation: int) -> np.ndarray:
        """``(len(heads), 2 * rank)``: ``e_h * w_r`` (complex product), ready to multiply with the entities."""
        k = self.rank
        h = self.entities[np.asarray(heads, dtype=np.int64)]
        w = self.relations[int(relation)]
        h_re, h_im, w_re, w_im = h[:, :k], h[:, k:], w[:k], w[k:]
        return np.concatenate([h_re * w_re - h_im * w_im, h_re * w_im + h_im * w_re], axis=1)

    def scores(self, heads: np.ndarray, relation: int) -> np.ndarray:
        """``(len(heads), num_entities)`` raw scores of every entity as the tail of each ``(head, relation)``."""
        return self.queries(heads, relation) @ self.entities.T

    def log_probabilities(self, heads: np.ndarray, relation: int) -> np.ndarray:
        """Log-softmax of :meth:`scores` over all entities (what training maximised for the true tail)."""
        s = self.scores(heads, relation)
        s -= s.max(axis=1, keepdims=True)
        s -= np.log(np.exp(s).sum(axis=1, keepdims=True))
        return s

    # -- files --------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> None:
        """Write ``path`` (.npz) and ``path.json`` atomically (the sidecar last: its presence means complete)."""
        path = Path(path)
        buf = io.BytesIO()
        arrays = {"entities": self.entities.astype(np.float32), "relations": self.relations.astype(np.float32)}
        for name, acc in (self.optimizer or {}).items():
            arrays[f"adagrad_{name}"] = np.asarray(acc, np.float32)
        np.savez(buf, **arrays)
        atomic_write_bytes(path, buf.getvalue())
        atomic_write_text(f"{path}.json", json.dumps(self.info, indent=1, sort_keys=True) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike, num_entities: int | None = None,
             num_relations: int | None = None, optimizer: bool = False) -> "LinkPredictor":
        """Read factors saved by :meth:`save`; check them against the graph's sizes when given.

        ``optimizer=True`` also reads the Adagrad accumulators (for resuming training) when the file has them.

        Raises
        ------
        EmbeddingError
            Missing or unreadable file, or sizes that do not match (names :data:`TRAIN_COMMAND`).
        """
        path = Path(path)
        if not path.exists():
            raise EmbeddingError(f"{path}: no link-prediction embeddings; create them with "
                                 f"`{TRAIN_COMMAND} --output {path}`")
        try:
            with np.load(path) as z:
                ent, rel = z["entities"], z["relations"]
                opt = {name: z[f"adagrad_{name}"] for name in ("entities", "relations")
                       if optimizer and f"adagrad_{name}" in z.files}
            info = json.loads(Path(f"{path}.json").read_text()) if Path(f"{path}.json").exists() else {}
        except (OSError, ValueError, KeyError) as exc:
            raise EmbeddingError(f"{path}: unreadable embedding file ({exc}); re-create it with "
                                 f"`{TRAIN_COMMAND} --output {path}`") from None
        if ent.ndim != 2 or rel.ndim != 2 or ent.shape[1] != rel.shape[1] or ent.shape[1] % 2:
            raise EmbeddingError(f"{path}: malformed factors {ent.shape} / {rel.shape}")
        if (num_entities is not None and ent.shape[0] != num_entities) or (
                num_relations is not None and rel.shape[0] != num_relations):
            raise EmbeddingError(f"{path}: trained for {ent.shape[0]} entities / {rel.shape[0]} relations, the graph "
                                 f"has {num_entities} / {num_relations}; train for this graph with "
                                 f"`{TRAIN_COMMAND} --output {path}`")
        if opt and (len(opt) != 2 or opt["entities"].shape != ent.shape or opt["relations"].shape != rel.shape):
            raise EmbeddingError(f"{path}: malformed optimiser state next to factors {ent.shape} / {rel.shape}")
        return cls(np.ascontiguousarray(ent, np.float32), np.ascontiguousarray(rel, np.float32), info,
                   {k: np.ascontiguousarray(v, np.float32) for k, v in opt.items()} or None)


@dataclass
class TrainConfig:
    """Hyper-parameters of :func:`train_complex`.

    The defaults are the NELL995 run in README (about an hour on 2 shared CPU cores; CQD trains rank 1000 for
    far longer on a GPU): Adagrad as in CQD's ComplEx-N3 training, a smaller rank and fewer epochs.
    """

    rank: int = 200
    epochs: int = 12
    batch_size: int = 1000
    learning_rate: float = 0.1
    regularisation: float = 2e-2
    init_scale: float = 1e-3
    valid_every: int = 1
    valid_sample: int = 2000
    patience: int = 3
    #: batches whose squared gradients estimate Adagrad's sums when a resumed file has none saved
    resume_warmup: int = 50
    bf16: bool = False
    threads: int = 2
    seed: int = 0


def _torch():
    try:
        import torch
    except ImportError:
        raise EmbeddingError("training embeddings needs torch: pip install 'logical_pyserini[kg]'") from None
    return torch


def filtered_tail_mrr(predictor: LinkPredictor, triples: np.ndarray, known: np.ndarray,
                      batch: int = 500) -> float:
    """Filtered MRR (%) of the tails of ``triples``: other known tails of the same ``(h, r)`` are not counted."""
    n_rel = predictor.relations.shape[0]
    order = np.argsort(known[:, 0] * n_rel + known[:, 1], kind="stable")
    keys = (known[:, 0] * n_rel + known[:, 1])[order]
    tails = known[order, 2]
    rr = []
    for rel in np.unique(triples[:, 1]):
        sub = triples[triples[:, 1] == rel]
        for lo in range(0, len(sub), batch):
            part = sub[lo:lo + batch]
            s = predictor.scores(part[:, 0], int(rel))
            true = s[np.arange(len(part)), part[:, 2]].copy()
            for i, (h, _, t) in enumerate(part):
                k = h * n_rel + rel
                a, b = np.searchsorted(keys, [k, k + 1])
                s[i, tails[a:b]] = -np.inf
                s[i, t] = true[i]
            higher = (s > true[:, None]).sum(axis=1)
            ties = (s == true[:, None]).sum(axis=1) - 1
            rr.append(1.0 / (1.0 + higher + ties / 2.0))
    return float(np.concatenate(rr).mean() * 100) if rr else 0.0


def train_complex(train: np.ndarray, num_entities: int, num_relations: int, config: TrainConfig = TrainConfig(),
                  valid: np.ndarray | None = None, progress: bool = True,
                  info: dict | None = None, checkpoint=None, start: LinkPredictor | None = None) -> LinkPredictor:
    """Train ComplEx-N3 1-vs-all on ``train`` triples; keep the epoch with the best filtered MRR on ``valid``.

    Parameters
    ----------
    train, valid : numpy.ndarray
        ``(n, 3)`` (head, relation, tail) ids; ``valid`` (optional) selects the epoch and stops early
        after ``config.patience`` checks without improvement (a sample of ``config.valid_sample`` triples).
    info : dict, optional
        Extra fields for the sidecar (data paths, digests).
    checkpoint : callable, optional
        Called with the best :class:`LinkPredictor` so far after each epoch that improves on ``valid``
        (the CLI saves it, so a long run that is stopped still leaves its best epoch on disk).
    start : LinkPredictor, optional
        Warm start: continue from these factors (same entity / relation counts and ``config.rank``, else
        :class:`EmbeddingError`) for ``config.epochs`` more epochs.  Adagrad resumes from the saved
        accumulators; a file without them gets an estimate (the squared gradients of
        ``config.resume_warmup`` batches at the start point, times the batches already trained, floored
        at their mean) so that the first steps are not the full learning rate.  The start's valid MRR is
        measured first and is the one to beat; epochs are numbered on from the start's best epoch and its
        history is kept.

    A ``KeyboardInterrupt`` (Ctrl-C; the CLI maps SIGTERM to it) ends training after the current batch and
    returns the best epoch so far.
    """
    torch = _torch()
    torch.set_num_threads(max(1, int(config.threads)))
    k = int(config.rank)
    first = 1
    if start is not None:
        want = ((num_entities, 2 * k), (num_relations, 2 * k))
        if (start.entities.shape, start.relations.shape) != want:
            raise EmbeddingError(f"cannot resume: the start file has factors {start.entities.shape} / "
                                 f"{start.relations.shape}, this run needs {want[0]} / {want[1]} "
                                 f"({num_entities} entities, {num_relations} relations, rank {k})")
        first = int(start.info.get("best_epoch") or start.info.get("epochs_run") or 0) + 1
    # a resumed run draws other batch orders than the epochs it continues
    gen = torch.Generator().manual_seed(config.seed + first - 1)
    rng = np.random.default_rng(config.seed)
    if start is None:
        ent = torch.nn.Parameter(torch.randn(num_entities, 2 * k, generator=gen) * config.init_scale)
        rel = torch.nn.Parameter(torch.randn(num_relations, 2 * k, generator=gen) * config.init_scale)
    else:
        ent = torch.nn.Parameter(torch.tensor(start.entities, dtype=torch.float32))
        rel = torch.nn.Parameter(torch.tensor(start.relations, dtype=torch.float32))
    opt = torch.optim.Adagrad([ent, rel], lr=config.learning_rate)
    data = torch.as_tensor(np.asarray(train, dtype=np.int64))
    known = np.concatenate([train, valid]) if valid is not None else np.asarray(train)
    vsample = None
    if valid is not None and len(valid):
        vsample = valid if len(valid) <= config.valid_sample else valid[
            np.sort(rng.choice(len(valid), config.valid_sample, replace=False))]
    last = first - 1 + config.epochs
    state = {"best": -1.0, "best_epoch": 0, "factors": None, "epochs_run": first - 1, "stopped": False}
    history: list[dict] = []
    resumed: list[dict] = []
    seconds_before = 0.0
    t0 = time.perf_counter()

    def snapshot() -> tuple:
        return (ent.detach().numpy().copy(), rel.detach().numpy().copy(),
                {"entities": opt.state[ent]["sum"].numpy().copy(), "relations": opt.state[rel]["sum"].numpy().copy()})

    def sidecar() -> dict:
        best = state["best"]
        out = {"model": "ComplEx-N3", "rank": k, "epochs_run": state["epochs_run"],
               "best_epoch": state["best_epoch"], "valid_mrr": round(best, 2) if best >= 0 else None,
               "stopped_by_user": state["stopped"], "valid_sample": None if vsample is None else len(vsample),
               "train_triples": int(len(train)), "seconds": round(seconds_before + time.perf_counter() - t0, 1),
               "history": history, "config": {key: getattr(config, key) for key in config.__dataclass_fields__},
               **(info or {})}
        if resumed:
            out["resumed_from"] = resumed
        return out

    def loss_of(b):
        h, w, t = ent[b[:, 0]], rel[b[:, 1]], ent[b[:, 2]]
        h_re, h_im, w_re, w_im = h[:, :k], h[:, k:], w[:, :k], w[:, k:]
        q = torch.cat([h_re * w_re - h_im * w_im, h_re * w_im + h_im * w_re], dim=1)
        if config.bf16:  # the (batch x entities) product is nearly all of the time
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = q @ ent.t()
            logits = logits.float()
        else:
            logits = q @ ent.t()
        fit = torch.nn.functional.cross_entropy(logits, b[:, 2])
        # N3 on the moduli of the factors the batch uses (Lacroix et al. 2018, CQD's training)
        n3 = sum(torch.sqrt(x[:, :k] ** 2 + x[:, k:] ** 2).pow(3).sum() for x in (h, w, t)) / len(b)
        opt.zero_grad(set_to_none=True)
        (fit + config.regularisation * n3).backward()
        return float(fit.detach())

    def valid_mrr() -> float:
        return filtered_tail_mrr(LinkPredictor(ent.detach().numpy(), rel.detach().numpy()), vsample, known)

    if start is not None:
        seconds_before = float(start.info.get("seconds") or 0.0)
        history.extend(r for r in start.info.get("history", []) if int(r.get("epoch", 0)) < first)
        resumed.extend(start.info.get("resumed_from", []))
        batches = -(-len(data) // config.batch_size)
        if start.optimizer is not None:
            for param, name in ((ent, "entities"), (rel, "relations")):
                opt.state[param]["sum"].copy_(torch.as_tensor(start.optimizer[name]))
            how = "saved"
        else:
            sums = [torch.zeros_like(ent), torch.zeros_like(rel)]
            n_warm = max(1, min(int(config.resume_warmup), batches))
            perm = torch.randperm(len(data), generator=gen)
            for j in tqdm(range(n_warm), desc="Adagrad state estimate", unit="batch", disable=not progress,
                          leave=False):
                loss_of(data[perm[j * config.batch_size:(j + 1) * config.batch_size]])
                for acc, param in zip(sums, (ent, rel)):
                    acc += param.grad.detach() ** 2
            opt.zero_grad(set_to_none=True)
            for acc, param in zip(sums, (ent, rel)):
                acc *= (first - 1) * batches / n_warm
                opt.state[param]["sum"].copy_(torch.maximum(acc, acc.mean()))
            how = f"estimated from {n_warm} batches"
        entry = {"file": start.info.get("output"), "epoch": first - 1, "adagrad": how}
        if vsample is not None:
            start_mrr = valid_mrr()
            entry["valid_mrr"] = round(start_mrr, 2)
            state.update(best=start_mrr, best_epoch=first - 1, factors=snapshot())
        resumed.append(entry)
        if progress:
            tqdm.write("ComplEx resumed " + json.dumps(entry))

    waited = 0
    try:
        for epoch in range(first, last + 1):
            perm = torch.randperm(len(data), generator=gen)
            total = 0.0
            bar = tqdm(range(0, len(data), config.batch_size), desc=f"ComplEx epoch {epoch}/{last}",
                       unit="batch", disable=not progress, leave=False)
            for lo in bar:
                b = data[perm[lo:lo + config.batch_size]]
                loss = loss_of(b)
                opt.step()
                total += loss * len(b)
                bar.set_postfix(loss=f"{loss:.3f}")
            state["epochs_run"] = epoch
            record = {"epoch": epoch, "loss": round(total / len(data), 4),
                      "seconds": round(seconds_before + time.perf_counter() - t0, 1)}
            if vsample is not None and (epoch % config.valid_every == 0 or epoch == last):
                mrr = valid_mrr()
                record["valid_mrr"] = round(mrr, 2)
                history.append(record)
                if mrr > state["best"]:
                    state.update(best=mrr, best_epoch=epoch, factors=snapshot())
                    waited = 0
                    if checkpoint is not None:
                        checkpoint(LinkPredictor(*state["factors"][:2], sidecar(), state["factors"][2]))
                else:
                    waited += 1
            else:
                history.append(record)
            if progress:
                tqdm.write("ComplEx " + json.dumps(record))
            if waited >= config.patience:
                break
    except KeyboardInterrupt:
        state["stopped"] = True
        logger.warning("training stopped after %d epochs; keeping the best one (%d)", state["epochs_run"],
                       state["best_epoch"])
    if state["factors"] is None:
        state.update(factors=snapshot(), best_epoch=state["epochs_run"])
    ent_f, rel_f, acc_f = state["factors"]
    return LinkPredictor(np.ascontiguousarray(ent_f, np.float32), np.ascontiguousarray(rel_f, np.float32),
                         sidecar(), acc_f)
