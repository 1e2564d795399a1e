#!/usr/bin/python3
"""Export reference ONNX models from PyTorch for rooflens benchmarks/tests.

Needs Debian's python3-torch python3-torchvision python3-onnx:

    apt-get install -y python3-torch python3-torchvision python3-onnx
    /usr/bin/python3 tools/make-models/torch_models.py [--out DIR] [--external]
                                                   [--opset N] [--dynamic]
                                                   [MODEL ...]

MODEL is any of the names printed by --list (default: all of them).  Output
goes to DIR (default: build/models/ in the repository, which is git-ignored)
as <name>.onnx, weights inline.  With --external each model is also written as
<name>_ext.onnx + <name>_ext.onnx.data (onnx external data, one file).

Models (random weights, torch.manual_seed(0); constant-initialized params
such as norm weights and zero biases get small noise unless --raw-init, so the
exporter does not fold them into shared initializers + Identity nodes; no
downloads):
  resnet50            torchvision resnet50(weights=None), [1,3,224,224]
  mobilenet_v3_large  torchvision mobilenet_v3_large(weights=None), [1,3,224,224]
  resnet18 efficientnet_b0 regnet_y_400mf shufflenet_v2_x1_0 squeezenet1_1
  convnext_tiny vit_b_16 densenet121 swin_t
                      the same torchvision classifiers, [1,3,224,224]
  bert_large          BERT-Large-shaped encoder written with plain torch.nn:
                      24 layers, hidden 1024, 16 heads, FF 4096 (erf GELU),
                      vocab 30522, 512 positions, pooler; inputs input_ids and
                      attention_mask [1,128] int64.  ~335M params, ~1.3 GB.
  yolo_small          small YOLO-like detector (Conv-BN-SiLU, CSP blocks, SPPF,
                      nearest Upsample + Concat neck, 3 heads), [1,3,320,320]
  lstm_lm             word LSTM language model: Embedding 10000x338, 2-layer
                      LSTM(338, 338), Linear 338->10000 (~8.6M params);
                      tokens [64,1] (seq-first)
  gpt_decoder         GPT-style decoder: 4 layers, d 256, 4 heads, vocab 8192,
                      context 128, causal mask (tril buffer sliced + masked_fill),
                      tied LM head; tokens [1,128]

At the default opset 13 LayerNorm is exported decomposed (ReduceMean, Sub,
Pow, ...); --opset 17 gives LayerNormalization.  --dynamic marks batch and
sequence dims of the inputs as symbolic (dim_params "batch", "seq").
"""

import argparse
import math
import os
import sys
import time
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


# --------------------------------------------------------------------------
# BERT-Large-shaped encoder
# --------------------------------------------------------------------------

class BertSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.dense = nn.Linear(d, d)

    def split(self, x):
        b, s, _ = x.size()
        return x.view(b, s, self.h, self.hd).transpose(1, 2)

    def forward(self, x, mask_bias):
        q = self.split(self.query(x))
        k = self.split(self.key(x))
        v = self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        scores = scores + mask_bias
        probs = F.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).contiguous()
        b, s = ctx.size(0), ctx.size(1)
        return self.dense(ctx.view(b, s, self.h * self.hd))


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff, eps=1e-12):
        super().__init__()
        self.attention = BertSelfAttention(d, heads)
        self.attention_norm = nn.LayerNorm(d, eps=eps)
        self.intermediate = nn.Linear(d, ff)
        self.act = nn.GELU()          # exact (erf) GELU
        self.output = nn.Linear(ff, d)
        self.output_norm = nn.LayerNorm(d, eps=eps)

    def forward(self, x, mask_bias):
        x = self.attention_norm(x + self.attention(x, mask_bias))
        return self.output_norm(x + self.output(self.act(self.intermediate(x))))


class BertEncoder(nn.Module):
    def __init__(self, vocab=30522, d=1024, layers=24, heads=16, ff=4096,
                 max_pos=512, type_vocab=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(max_pos, d)
        self.token_type_embeddings = nn.Embedding(type_vocab, d)
        self.embeddings_norm = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0),
                             persistent=False)
        self.layers = nn.ModuleList(BertLayer(d, heads, ff) for _ in range(layers))
        self.pooler = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask):
        s = input_ids.size(1)
        pos = self.position_ids[:, :s]
        types = torch.zeros_like(input_ids)
        x = (self.word_embeddings(input_ids) + self.position_embeddings(pos)
             + self.token_type_embeddings(types))
        x = self.embeddings_norm(x)
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


# --------------------------------------------------------------------------
# GPT-style decoder with causal mask
# --------------------------------------------------------------------------

class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool))
                             .view(1, 1, ctx, ctx), persistent=False)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.h, self.hd).transpose(1, 2)
        k = k.view(b, t, self.h, self.hd).transpose(1, 2)
        v = v.view(b, t, self.h, self.hd).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd))
        att = att.masked_fill(~self.bias[:, :, :t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class GptBlock(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, ctx)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GptDecoder(nn.Module):
    def __init__(self, vocab=8192, d=256, layers=4, heads=4, ctx=128):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(GptBlock(d, heads, ctx) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight     # tied

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


# --------------------------------------------------------------------------
# LSTM language model
# --------------------------------------------------------------------------

class LstmLM(nn.Module):
    def __init__(self, vocab=10000, emb=338, hidden=338, layers=2):
        super().__init__()
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, layers)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.rnn(self.encoder(tokens))
        return self.decoder(out)


# --------------------------------------------------------------------------
# small YOLO-like detector
# --------------------------------------------------------------------------

class ConvBnSiLU(nn.Sequential):
    def __init__(self, cin, cout, k=1, s=1):
        super().__init__(nn.Conv2d(cin, cout, k, s, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.SiLU())


class Bottleneck(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBnSiLU(c, c, 1)
        self.cv2 = ConvBnSiLU(c, c, 3)

    def forward(self, x):
        return x + self.cv2(self.cv1(x))


class C3(nn.Module):
    def __init__(self, cin, cout, n=1):
        super().__init__()
        c = cout // 2
        self.cv1 = ConvBnSiLU(cin, c)
        self.cv2 = ConvBnSiLU(cin, c)
        self.m = nn.Sequential(*(Bottleneck(c) for _ in range(n)))
        self.cv3 = ConvBnSiLU(2 * c, cout)

    def forward(self, x):
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], 1))


class SPPF(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        c = cin // 2
        self.cv1 = ConvBnSiLU(cin, c)
        self.pool = nn.MaxPool2d(5, 1, 2)
        self.cv2 = ConvBnSiLU(4 * c, cout)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.cv2(torch.cat([x, y1, y2, self.pool(y2)], 1))


class YoloSmall(nn.Module):
    def __init__(self, nc=80, na=3, w=(16, 32, 64, 128, 256)):
        super().__init__()
        self.no = nc + 5
        self.na = na
        self.stem = ConvBnSiLU(3, w[0], 3, 2)                                      # /2
        self.s2 = nn.Sequential(ConvBnSiLU(w[0], w[1], 3, 2), C3(w[1], w[1], 1))   # /4
        self.s3 = nn.Sequential(ConvBnSiLU(w[1], w[2], 3, 2), C3(w[2], w[2], 2))   # /8
        self.s4 = nn.Sequential(ConvBnSiLU(w[2], w[3], 3, 2), C3(w[3], w[3], 2))   # /16
        self.s5 = nn.Sequential(ConvBnSiLU(w[3], w[4], 3, 2), C3(w[4], w[4], 1),
                                SPPF(w[4], w[4]))                                   # /32
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.lat5 = ConvBnSiLU(w[4], w[3])
        self.n4 = C3(2 * w[3], w[3], 1)
        self.lat4 = ConvBnSiLU(w[3], w[2])
        self.n3 = C3(2 * w[2], w[2], 1)
        self.heads = nn.ModuleList(nn.Conv2d(c, na * self.no, 1) for c in (w[2], w[3], w[4]))

    def forward(self, x):
        p3 = self.s3(self.s2(self.stem(x)))
        p4 = self.s4(p3)
        p5 = self.s5(p4)
        l5 = self.lat5(p5)
        f4 = self.n4(torch.cat([self.up(l5), p4], 1))
        l4 = self.lat4(f4)
        f3 = self.n3(torch.cat([self.up(l4), p3], 1))
        outs = []
        for head, f in zip(self.heads, (f3, f4, p5)):
            y = head(f)
            b, _, h, w_ = y.shape
            y = y.view(b, self.na, self.no, h, w_).permute(0, 1, 3, 4, 2)
            outs.append(torch.sigmoid(y).reshape(b, -1, self.no))
        return torch.cat(outs, 1)


# --------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------

def perturb_constant_params(module):
    """Give constant-initialized parameters (norm weights/biases, zero biases)
    and BatchNorm statistics non-constant values, as in a trained model.
    With torch's default init many of them are identical and the exporter
    deduplicates them into one initializer plus Identity nodes, which real
    (trained) exports do not have."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in module.parameters():
            if p.numel() > 1 and bool((p == p.reshape(-1)[0]).all()):
                p.add_(0.02 * torch.randn(p.shape, generator=g))
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=g))
                m.running_var.copy_(1 + 0.1 * torch.rand(m.running_var.shape, generator=g))


def _tv(name):
    import torchvision
    return getattr(torchvision.models, name)(weights=None)


def image_input(size):
    return {"args": (torch.randn(1, 3, size, size),), "inputs": ["input"],
            "outputs": ["output"], "dynamic": {"input": {0: "batch"}}}


# torchvision classifiers exported as they are, [1,3,224,224]: the families the
# forecast is validated on (docs/validation.md) beside the hand-written ones.
TORCHVISION_IMAGE = ["resnet50", "mobilenet_v3_large", "resnet18", "efficientnet_b0",
                     "regnet_y_400mf", "shufflenet_v2_x1_0", "squeezenet1_1",
                     "convnext_tiny", "vit_b_16", "densenet121", "swin_t",
                     "mobilenet_v2", "mnasnet1_0", "resnext50_32x4d", "regnet_x_400mf",
                     "googlenet", "regnet_y_800mf", "regnet_x_1_6gf", "mobilenet_v3_small",
                     "efficientnet_b1", "wide_resnet50_2"]


def build(name):
    """Return (module, export spec)."""
    if name in TORCHVISION_IMAGE:
        return _tv(name), image_input(224)
    if name == "bert_large":
        ids = torch.randint(0, 30522, (1, 128), dtype=torch.long)
        mask = torch.ones(1, 128, dtype=torch.long)
        return BertEncoder(), {
            "args": (ids, mask), "inputs": ["input_ids", "attention_mask"],
            "outputs": ["last_hidden_state", "pooler_output"],
            "dynamic": {"input_ids": {0: "batch", 1: "seq"},
                        "attention_mask": {0: "batch", 1: "seq"}}}
    if name == "yolo_small":
        spec = image_input(320)
        return YoloSmall(), spec
    if name == "lstm_lm":
        tokens = torch.randint(0, 10000, (64, 1), dtype=torch.long)
        return LstmLM(), {"args": (tokens,), "inputs": ["tokens"],
                          "outputs": ["logits"],
                          "dynamic": {"tokens": {0: "seq", 1: "batch"}}}
    if name == "gpt_decoder":
        idx = torch.randint(0, 8192, (1, 128), dtype=torch.long)
        return GptDecoder(), {"args": (idx,), "inputs": ["input_ids"],
                              "outputs": ["logits"],
                              "dynamic": {"input_ids": {0: "batch", 1: "seq"}}}
    raise KeyError(name)


MODELS = TORCHVISION_IMAGE + ["bert_large", "yolo_small", "lstm_lm",
          "gpt_decoder"]


def human(n):
    """Bytes with binary units (KiB, MiB, GiB) and the exact count."""
    v = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if v < 1024 or unit == "GiB":
            break
        v /= 1024.0
    return "%d B" % n if unit == "B" else "%.2f %s (%d B)" % (v, unit, n)


def save_external(src, out_dir, name):
    import onnx
    dst = os.path.join(out_dir, name + "_ext.onnx")
    data_name = name + "_ext.onnx.data"
    data_path = os.path.join(out_dir, data_name)
    # onnx appends to an existing data file: start from scratch
    for p in (dst, data_path):
        if os.path.exists(p):
            os.remove(p)
    m = onnx.load(src)
    onnx.save_model(m, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=1024)
    del m
    onnx.checker.check_model(dst)
    return dst, data_path


def export_one(name, out_dir, opset, dynamic, external, raw_init=False):
    import onnx
    torch.manual_seed(0)
    module, spec = build(name)
    if not raw_init:
        perturb_constant_params(module)
    module.eval()
    params = sum(p.numel() for p in module.parameters())
    path = os.path.join(out_dir, name + ".onnx")
    t0 = time.time()
    # Gradients stay on for the export: in eval mode without them torch's
    # nn.MultiheadAttention takes its fused fast path (ViT's encoder), an op
    # ONNX has no export for. The exported graph is the same either way.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, spec["args"], path, opset_version=opset,
                          input_names=spec["inputs"], output_names=spec["outputs"],
                          dynamic_axes=spec["dynamic"] if dynamic else None,
                          do_constant_folding=True)
    t_export = time.time() - t0
    del module
    onnx.checker.check_model(path)      # path form works for big files too
    size = os.path.getsize(path)
    line = "%-19s params %10d  %s  export %.1fs" % (name, params, human(size), t_export)
    if external:
        t1 = time.time()
        dst, data = save_external(path, out_dir, name)
        line += "  | %s %s + %s %s (%.1fs)" % (
            os.path.basename(dst), human(os.path.getsize(dst)),
            os.path.basename(data), human(os.path.getsize(data)), time.time() - t1)
    print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("models", nargs="*", metavar="MODEL", help="default: all")
    ap.add_argument("--out", default=os.path.join(REPO, "build", "models"))
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--external", action="store_true",
                    help="also write <name>_ext.onnx + <name>_ext.onnx.data")
    ap.add_argument("--dynamic", action="store_true",
                    help="symbolic batch/seq dims on the inputs")
    ap.add_argument("--raw-init", action="store_true",
                    help="keep torch's default init (the exporter then dedups "
                         "identical params into Identity nodes)")
    ap.add_argument("--list", action="store_true", help="list model names")
    args = ap.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return
    names = args.models or MODELS
    bad = [n for n in names if n not in MODELS]
    if bad:
        sys.exit("unknown model(s): %s (known: %s)" % (", ".join(bad), ", ".join(MODELS)))
    os.makedirs(args.out, exist_ok=True)
    print("torch %s, opset %d, output %s" % (torch.__version__, args.opset, args.out))
    for n in names:
        export_one(n, args.out, args.opset, args.dynamic, args.external, args.raw_init)


if __name__ == "__main__":
    main()
