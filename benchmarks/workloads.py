#!/usr/bin/env python3
"""The workload shape set of issue 30: GEMMs of public models, as they run.

Writes benchmarks/workloads.txt (every problem, with where it comes from)
and its fixed-seed split, workloads-train.txt (about 70%: the only part
the tuner and the cost model's fit may see) and workloads-heldout.txt
(the rest: reported apart, never tuned on). Run it again to check that
the committed files are what it writes (`--check`).

A linear layer y = x W^T with x of T tokens x IN features and W of OUT x
IN is the GEMM M = T, N = OUT, K = IN; a convolution, by im2col, is M =
batch x output pixels, N = output channels, K = input channels x kernel
area. Layer sizes are the models' published configurations (the config
files of their public checkpoints, or the papers' tables); token counts
span decoding (1-128 sequences of one token) and prefill / training
(512-8192 tokens).
"""
import random
import sys
from pathlib import Path

SEED = 30          # the split's seed; never change it after tuning
HELD_OUT = 0.30

# (model, hidden, [(layer, in, out)], token counts)
DECODE = [1, 16, 128]
PREFILL = [512, 2048, 4096]


def transformer(name, d, ffn, qkv, gated=True, vocab=None, attn_out=None):
    """The linear layers of one decoder block (+ the LM head)."""
    layers = [("qkv", d, qkv), ("o", attn_out or d, d)]
    if gated:
        layers += [("gate_up", d, 2 * ffn), ("down", ffn, d)]
    else:
        layers += [("fc1", d, ffn), ("fc2", ffn, d)]
    if vocab:
        layers.append(("lm_head", d, vocab))
    return name, layers


LLMS = [
    # Llama-2 7B / 13B (MHA), Llama-2 70B and Llama-3 8B (GQA, 8 KV heads
    # of 128), Mistral 7B (as Llama-3 8B but vocab 32000), Qwen2 7B (4 KV
    # heads), Gemma 7B (16 heads of 256), Phi-2, Falcon 7B (MQA), OPT 6.7B.
    (transformer("llama2-7b", 4096, 11008, 3 * 4096, vocab=32000), DECODE + PREFILL),
    (transformer("llama2-13b", 5120, 13824, 3 * 5120), [1, 32, 512, 4096]),
    (transformer("llama2-70b", 8192, 28672, 8192 + 2 * 1024), [1, 16, 128, 1024]),
    (transformer("llama3-8b", 4096, 14336, 4096 + 2 * 1024, vocab=128256), [1, 8, 64, 256, 2048, 8192]),
    (transformer("mistral-7b", 4096, 14336, 4096 + 2 * 1024), [4, 2000]),
    (transformer("qwen2-7b", 3584, 18944, 3584 + 2 * 512, vocab=152064), [1, 24, 300, 1500, 3000]),
    (transformer("gemma-7b", 3072, 24576, 3 * 4096, attn_out=4096), [1, 96, 1024, 3072]),
    (transformer("phi-2", 2560, 10240, 3 * 2560, gated=False, vocab=51200), [1, 50, 640, 2048]),
    (transformer("falcon-7b", 4544, 18176, 4544 + 2 * 64, gated=False), [1, 40, 1200]),
    (transformer("opt-6.7b", 4096, 16384, 3 * 4096, gated=False, vocab=50272), [2, 700, 2048]),
    # GPT-2 small / XL (vocab 50257, odd), GPT-3 175B.
    (transformer("gpt2", 768, 3072, 3 * 768, gated=False, vocab=50257), [1, 8, 1024, 8192]),
    (transformer("gpt2-xl", 1600, 6400, 3 * 1600, gated=False), [1, 1024, 4096]),
    (transformer("gpt3-175b", 12288, 49152, 3 * 12288, gated=False), [1, 16, 256]),
    # Encoders: BERT base / large and T5 v1.1 XL (gated-GELU, 2048 / 5120),
    # sequences of 128 and 512 in batches.
    (transformer("bert-base", 768, 3072, 3 * 768, gated=False), [128 * 8, 512 * 32, 384]),
    (transformer("bert-large", 1024, 4096, 3 * 1024, gated=False), [128 * 32, 512 * 8, 200]),
    (transformer("t5-xl", 2048, 5120, 3 * 2048), [512 * 4, 77, 1]),
    # ViT-B/16 and ViT-L/16: 197 tokens an image (odd), batches of 8 and 64.
    (transformer("vit-b16", 768, 3072, 3 * 768, gated=False), [197 * 8, 197 * 64]),
    (transformer("vit-l16", 1024, 4096, 3 * 1024, gated=False), [197, 197 * 32]),
    # Speech: Whisper large-v3 (1,500 encoder frames per 30 s) and base,
    # wav2vec 2.0 large (50 frames a second: 10 s = 499 frames).
    (transformer("whisper-large", 1280, 5120, 3 * 1280, gated=False, vocab=51866), [1, 5, 1500, 1500 * 4]),
    (transformer("whisper-base", 512, 2048, 3 * 512, gated=False), [1500 * 8, 3]),
    (transformer("wav2vec2-large", 1024, 4096, 3 * 1024, gated=False), [499 * 4, 499 * 16]),
]

# Mixture-of-experts FFNs, one expert at a time: Mixtral 8x7B (4096 ->
# 14336 -> 4096), DeepSeek-V2-Lite experts (2048 -> 1408), routed tokens.
MOE = [("mixtral-expert", [("w13", 4096, 2 * 14336), ("w2", 14336, 4096)], [37, 512, 1811]),
       ("deepseek-expert", [("w13", 2048, 2 * 1408), ("w2", 1408, 2048)], [9, 130, 977])]

# Convolutions by im2col: (layer, in channels, out channels, kernel,
# output side); M = batch x side^2.
RESNET50 = [
    ("conv1", 3, 64, 7, 112),
    ("l1.1x1a", 64, 64, 1, 56), ("l1.3x3", 64, 64, 3, 56), ("l1.1x1b", 64, 256, 1, 56),
    ("l1.in", 256, 64, 1, 56),
    ("l2.1x1a", 256, 128, 1, 28), ("l2.3x3", 128, 128, 3, 28), ("l2.1x1b", 128, 512, 1, 28),
    ("l2.in", 512, 128, 1, 28),
    ("l3.1x1a", 512, 256, 1, 14), ("l3.3x3", 256, 256, 3, 14), ("l3.1x1b", 256, 1024, 1, 14),
    ("l3.in", 1024, 256, 1, 14),
    ("l4.1x1a", 1024, 512, 1, 7), ("l4.3x3", 512, 512, 3, 7), ("l4.1x1b", 512, 2048, 1, 7),
    ("l4.in", 2048, 512, 1, 7),
]
VGG16 = [("c1_2", 64, 64, 3, 224), ("c2_2", 128, 128, 3, 112), ("c3_2", 256, 256, 3, 56),
         ("c4_2", 512, 512, 3, 28), ("c5_2", 512, 512, 3, 14)]
CONVNETS = [("resnet50", RESNET50, [1, 32]), ("vgg16", VGG16, [8])]
# Fully connected heads: ResNet-50 2048 -> 1000, VGG-16 25088 -> 4096 ->
# 4096 -> 1000.
HEADS = [("resnet50.fc", 2048, 1000, [1, 32, 256]),
         ("vgg16.fc6", 25088, 4096, [8, 64]), ("vgg16.fc7", 4096, 4096, [8, 64]),
         ("vgg16.fc8", 4096, 1000, [8, 64])]

# Recurrent layers: an LSTM step's gates, [x, h] (batch x 2h) times the
# stacked weights (2h -> 4h); a GRU's 3h. GNMT (1024), DeepSpeech 2 (GRU
# 1760 and 2560), a 2048 LSTM.
RNNS = [("gnmt-lstm", 2 * 1024, 4 * 1024, [32, 128, 512]),
        ("ds2-gru1760", 2 * 1760, 3 * 1760, [16, 64, 7000]),
        ("ds2-gru2560", 2 * 2560, 3 * 2560, [32, 128]),
        ("lstm2048", 2 * 2048, 4 * 2048, [8, 64, 256])]

# Attention projections of Stable Diffusion 1.x's UNet: self-attention
# over 64x64, 32x32 and 16x16 latents (320, 640, 1280 channels), its
# cross-attention keys and values from CLIP's 77 tokens of 768, and the
# GEGLU feed-forward (C -> 8C -> C), batch 2 (classifier-free guidance).
SD_UNET = [(c, side) for c, side in [(320, 64), (640, 32), (1280, 16)]]


def problems():
    out = []  # (m, n, k, source)
    for (name, layers), tokens in LLMS:
        for t in tokens:
            for layer, fin, fout in layers:
                # Logits for the last tokens of a prompt, or a training
                # batch of 2,048 at most.
                if layer == "lm_head" and t > 2048:
                    continue
                out.append((t, fout, fin, f"{name} {layer} T={t}"))
    for name, layers, tokens in MOE:
        for t in tokens:
            for layer, fin, fout in layers:
                out.append((t, fout, fin, f"{name} {layer} T={t}"))
    for name, convs, batches in CONVNETS:
        for b in batches:
            for layer, cin, cout, kernel, side in convs:
                out.append((b * side * side, cout, cin * kernel * kernel,
                            f"{name} {layer} im2col batch={b}"))
    for name, fin, fout, batches in HEADS:
        for b in batches:
            out.append((b, fout, fin, f"{name} batch={b}"))
    for name, fin, fout, batches in RNNS:
        for b in batches:
            out.append((b, fout, fin, f"{name} gates batch={b}"))
    for c, side in SD_UNET:
        t = 2 * side * side
        out += [(t, 3 * c, c, f"sd-unet self-attn qkv C={c} T={t}"),
                (t, c, c, f"sd-unet attn out C={c} T={t}"),
                (2 * 77, 2 * c, 768, f"sd-unet cross-attn kv C={c}"),
                (t, 8 * c, c, f"sd-unet geglu in C={c} T={t}"),
                (t, c, 4 * c, f"sd-unet geglu out C={c} T={t}")]
    # One line per problem: the first source names it.
    seen, unique = set(), []
    for m, n, k, source in out:
        if (m, n, k) not in seen:
            seen.add((m, n, k))
            unique.append((m, n, k, source))
    return unique


# Attention's score products, Q K^T for each head: M = query tokens, N = key
# tokens, K = the head's width, a dense batch of batch x heads products (B
# column-major: K^T is a view of K). (model, heads, head width, [(batch,
# query tokens, key tokens)]): the encoders and prefills above, and decode
# steps (one query token against a cache of keys).
ATTENTION = [
    ("bert-base", 12, 64, [(8, 128, 128), (32, 128, 128), (8, 512, 512)]),
    ("bert-large", 16, 64, [(32, 128, 128), (8, 512, 512)]),
    ("gpt2", 12, 64, [(1, 1024, 1024), (8, 1024, 1024), (8, 1, 1024)]),
    ("gpt2-xl", 25, 64, [(1, 1024, 1024), (4, 1024, 1024)]),
    ("vit-b16", 12, 64, [(8, 197, 197), (64, 197, 197)]),
    ("vit-l16", 16, 64, [(1, 197, 197), (32, 197, 197)]),
    ("whisper-large", 20, 64, [(1, 1500, 1500), (4, 1500, 1500)]),
    ("whisper-base", 8, 64, [(8, 1500, 1500)]),
    ("wav2vec2-large", 16, 64, [(4, 499, 499), (16, 499, 499)]),
    ("t5-xl", 32, 64, [(4, 512, 512)]),
    ("llama2-7b", 32, 128, [(1, 512, 512), (1, 2048, 2048), (1, 4096, 4096),
                            (1, 1, 1024), (16, 1, 4096)]),
    ("llama3-8b", 32, 128, [(1, 2048, 2048), (1, 8192, 8192), (8, 1, 8192)]),
    ("gemma-7b", 16, 256, [(1, 1024, 1024), (1, 3072, 3072)]),
    ("phi-2", 32, 80, [(1, 2048, 2048), (4, 640, 640)]),
    ("falcon-7b", 71, 64, [(1, 1200, 1200)]),
    ("opt-6.7b", 32, 128, [(1, 2048, 2048), (2, 700, 700)]),
    # Stable Diffusion 1.x's UNet: 8 heads of C / 8 over 64x64, 32x32 and
    # 16x16 latents, batch 2; its cross-attention against CLIP's 77 tokens.
    ("sd-unet self C=320", 8, 40, [(2, 4096, 4096)]),
    ("sd-unet self C=640", 8, 80, [(2, 1024, 1024)]),
    ("sd-unet self C=1280", 8, 160, [(2, 256, 256)]),
    ("sd-unet cross C=320", 8, 40, [(2, 4096, 77)]),
    ("sd-unet cross C=640", 8, 80, [(2, 1024, 77)]),
]


def attention_scores():
    out = []  # (m, n, k, batch, source)
    for name, heads, width, runs in ATTENTION:
        for batch, queries, keys in runs:
            out.append((queries, keys, width, batch * heads,
                        f"{name} scores batch={batch} heads={heads}"))
    return out


HEADER = """# {title}
# Generated by benchmarks/workloads.py (seed {seed}); one problem per line,
# MxNxK, dense leading dimensions, then `# source`. See docs/benchmarks.md.
"""


def render(rows, title):
    lines = [HEADER.format(title=title, seed=SEED)]
    for row in rows:
        m, n, k, source = row[0], row[1], row[2], row[-1]
        batch = f" batch={row[3]}" if len(row) == 5 else ""
        lines.append(f"{m}x{n}x{k}{batch}  # {source}\n")
    return "".join(lines)


def split(rows, name, what):
    """`name`.txt and its fixed-seed training and held-out parts."""
    rng = random.Random(SEED)
    order = list(range(len(rows)))
    rng.shuffle(order)
    cut = round(len(rows) * HELD_OUT)
    held = sorted(order[:cut])
    train = sorted(order[cut:])
    return {
        f"{name}.txt": render(rows, f"{what}: {len(rows)} problems"),
        f"{name}-train.txt": render([rows[i] for i in train],
            f"Training part of {name}.txt: {len(train)} problems (the tuner and the fit see only these)"),
        f"{name}-heldout.txt": render([rows[i] for i in held],
            f"Held-out part of {name}.txt: {len(held)} problems (never tuned or fitted on)"),
    }


def main():
    rows = problems()
    here = Path(__file__).resolve().parent
    files = split(rows, "workloads", "Workload shapes of public models")
    files.update(split(attention_scores(), "attention-scores",
                       "Attention score products of public models (rcr, dense batches)"))
    check = "--check" in sys.argv
    stale = []
    for name, text in files.items():
        path = here / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("stale: " + ", ".join(stale) + " (run benchmarks/workloads.py)")
        return 1
    print(f"{len(rows)} problems, {len(attention_scores())} attention score products")
    return 0


if __name__ == "__main__":
    sys.exit(main())
