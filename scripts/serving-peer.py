#!/usr/bin/env python3
"""Regenerate validation/serving-peer.csv: the decode step of every side-by-side deployment,
as NVIDIA's aiconfigurator (PyPI 0.12.0, `aiconfigurator cli estimate --estimate-mode
static_gen`, backend trtllm) estimates it. Only the peer's printed outputs are kept.

    python3 -m venv /tmp/aic && /tmp/aic/bin/pip install aiconfigurator==0.12.0
    AIC=/tmp/aic/bin/aiconfigurator python3 scripts/serving-peer.py > validation/serving-peer.csv
"""
import csv, datetime, os, re, subprocess, sys

AIC = os.environ.get("AIC", "aiconfigurator")
VERSION = "0.12.0"
ISL, OSL = 1024, 1024

# Our model preset -> the peer's HuggingFace id (its bundled config.json).
HF = {
    "llama3-8b": "meta-llama/Meta-Llama-3.1-8B",
    "llama3-70b": "meta-llama/Meta-Llama-3.1-70B",
    "llama3-405b": "meta-llama/Meta-Llama-3.1-405B",
    "qwen3-32b": "Qwen/Qwen3-32B",
    "deepseek-v3": "deepseek-ai/DeepSeek-V3",
}
# Our GPU -> the peer's system.
SYSTEM = {"h100": "h100_sxm", "h200": "h200_sxm", "b200": "b200_sxm", "gb200": "gb200"}
GPUS_PER_NODE = {"h100": 8, "h200": 8, "b200": 8, "gb200": 4}

# (kind, model, gpu, tp, ep, dp, batch per attention-DP rank). Weights FP8 (DeepSeek-V3: its
# own block-scaled FP8), KV cache FP8.
DEPLOYMENTS = [
    ("dense", "llama3-8b", "h100", 1, 1, 1, 64),
    ("dense", "llama3-8b", "b200", 1, 1, 1, 128),
    ("dense", "llama3-70b", "h100", 8, 1, 1, 16),
    ("dense", "llama3-70b", "h100", 8, 1, 1, 64),
    ("dense", "llama3-70b", "h100", 8, 1, 1, 256),
    ("dense", "llama3-70b", "h100", 4, 1, 1, 64),
    ("dense", "llama3-70b", "h200", 8, 1, 1, 64),
    ("dense", "llama3-70b", "h200", 8, 1, 1, 256),
    ("dense", "llama3-70b", "h200", 4, 1, 1, 128),
    ("dense", "llama3-70b", "b200", 8, 1, 1, 64),
    ("dense", "llama3-70b", "b200", 8, 1, 1, 256),
    ("dense", "llama3-70b", "b200", 4, 1, 1, 128),
    ("dense", "llama3-70b", "gb200", 4, 1, 1, 64),
    ("dense", "llama3-70b", "gb200", 4, 1, 1, 256),
    ("dense", "llama3-405b", "h200", 8, 1, 1, 64),
    ("dense", "llama3-405b", "b200", 8, 1, 1, 64),
    ("dense", "qwen3-32b", "h100", 2, 1, 1, 64),
    ("dense", "qwen3-32b", "h200", 2, 1, 1, 128),
    ("dense", "qwen3-32b", "h200", 1, 1, 1, 32),
    ("dense", "qwen3-32b", "b200", 2, 1, 1, 128),
    ("dense", "qwen3-32b", "gb200", 1, 1, 1, 64),
    ("moe", "deepseek-v3", "h100", 1, 16, 16, 32),
    ("moe", "deepseek-v3", "h100", 1, 16, 16, 64),
    ("moe", "deepseek-v3", "h200", 1, 8, 8, 32),
    ("moe", "deepseek-v3", "h200", 1, 8, 8, 128),
    ("moe", "deepseek-v3", "h200", 1, 16, 16, 64),
    ("moe", "deepseek-v3", "b200", 1, 8, 8, 64),
    ("moe", "deepseek-v3", "b200", 1, 8, 8, 256),
    ("moe", "deepseek-v3", "b200", 1, 16, 16, 128),
    ("moe", "deepseek-v3", "gb200", 1, 8, 8, 64),
    ("moe", "deepseek-v3", "gb200", 1, 16, 16, 64),
    ("moe", "deepseek-v3", "gb200", 1, 16, 16, 256),
    ("moe", "deepseek-v3", "gb200", 1, 32, 32, 128),
    ("moe", "deepseek-v3", "gb200", 1, 32, 32, 32),
    ("moe", "deepseek-v3", "b200", 1, 16, 16, 32),
]


def command(model, gpu, tp, ep, dp, batch):
    c = [AIC, "cli", "estimate", "--model", HF[model], "--system", SYSTEM[gpu], "--backend", "trtllm",
         "--estimate-mode", "static_gen", "--isl", str(ISL), "--osl", str(OSL), "--tp", str(tp),
         "--batch-size", str(batch), "--kvcache-quant-mode", "fp8"]
    if ep > 1:
        c += ["--dp", str(dp), "--ep", str(ep)]
    if model != "deepseek-v3":
        c += ["--gemm-quant-mode", "fp8"]
    return c


def field(text, label):
    m = re.search(r"^\s*" + re.escape(label) + r":\s*([0-9,.]+)", text, re.M)
    if not m:
        raise SystemExit(f"no '{label}' in the peer's output:\n{text}")
    return float(m.group(1).replace(",", ""))


def main():
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["kind", "model", "peer_model", "gpu", "peer_system", "gpus", "nodes", "tp", "ep", "dp", "batch",
                "input_len", "output_len", "precision", "kv_precision", "peer_tpot_ms",
                "peer_tokens_per_s_per_gpu", "peer_tokens_per_s_per_user", "peer", "peer_mode", "date", "command"])
    today = datetime.date.today().isoformat()
    for kind, model, gpu, tp, ep, dp, batch in DEPLOYMENTS:
        c = command(model, gpu, tp, ep, dp, batch)
        out = subprocess.run(c, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        text = out.stdout + out.stderr
        gpus = tp * dp
        nodes = max(1, gpus // GPUS_PER_NODE[gpu])
        shown = " ".join(["aiconfigurator"] + c[1:])
        w.writerow([kind, model, HF[model], gpu, SYSTEM[gpu], gpus, nodes, tp, ep, dp, batch, ISL, OSL, "fp8", "fp8",
                    field(text, "TPOT"), field(text, "tokens/s/gpu"), field(text, "tokens/s/user"),
                    f"aiconfigurator {VERSION} (PyPI), trtllm database " + re.search(r"Backend:\s*trtllm \(([^)]+)\)", text).group(1),
                    "estimate static_gen (decode only, TPOT averaged over the OSL steps)", today, shown])
        sys.stdout.flush()


if __name__ == "__main__":
    main()
