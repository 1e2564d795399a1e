"""Models built from their architecture (random weights, nothing downloaded)
for the GPU measurements of tools/validate/gpu.py and
tools/validate/forecast_gpu.py. Their graphs are the ones rooflens analyses:
tests/fixtures/models/torch/ (exported by tools/validate/gpu.py) and the
torchvision exports of tools/make-models/torch_models.py. Needs PyTorch."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Bert(nn.Module):
    """BERT-base-shaped encoder: 12 layers, hidden 768, 12 heads, FFN 3072.
    fused_attention=True computes the same attention with
    F.scaled_dot_product_attention (one fused kernel, as a tuned engine runs
    it); the exported graph is the explicit MatMul-Softmax-MatMul form."""

    def __init__(self, layers=12, d=768, h=12, ff=3072, vocab=30522, maxpos=512, fused_attention=False):
        super().__init__()
        self.h = h
        self.fused_attention = fused_attention
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(maxpos, d)
        self.ln0 = nn.LayerNorm(d)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict(dict(qkv=nn.Linear(d, 3 * d), o=nn.Linear(d, d), ln1=nn.LayerNorm(d),
                                                  f1=nn.Linear(d, ff), f2=nn.Linear(ff, d), ln2=nn.LayerNorm(d))))

    def forward(self, ids):
        B, S = ids.shape
        x = self.ln0(self.emb(ids) + self.pos(torch.arange(S, device=ids.device))[None])
        d = x.shape[-1]
        for L in self.layers:
            q, k, v = L["qkv"](x).split(d, dim=-1)
            q, k, v = (t.reshape(B, S, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
            if self.fused_attention:
                a = F.scaled_dot_product_attention(q, k, v)
            else:
                a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.h), dim=-1) @ v
            x = L["ln1"](x + L["o"](a.transpose(1, 2).reshape(B, S, d)))
            x = L["ln2"](x + L["f2"](F.gelu(L["f1"](x))))
        return x
