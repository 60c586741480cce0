"""A training step built from Liger-Kernel's Triton ops, as a user writes it
(bench/gpu_capture_programs.sh, "liger"): a small decoder block in bf16
(RMSNorm, attention with Liger's RoPE and PyTorch's SDPA, a SwiGLU MLP, a
LayerNorm, a GEGLU MLP, Liger's softmax over a gate) and Liger's cross-entropy
loss, forward and backward, then AdamW. Every kernel runs: Liger's Triton
kernels, PyTorch's own (TensorIterator functors, cuBLAS GEMMs, SDPA, the
fused AdamW), so `tilescope-run capture -- python3 liger_step.py` sees a real
program's mix. Liger-Kernel comes from PyPI (`pip install liger-kernel`).

Usage: liger_step.py [STEPS]   (prints the loss of each step)
"""

import sys
import types

import torch
import torch.nn.functional as F
from liger_kernel.transformers import (
    LigerCrossEntropyLoss,
    LigerGEGLUMLP,
    LigerLayerNorm,
    LigerRMSNorm,
    LigerSoftmax,
    LigerSwiGLUMLP,
    liger_rotary_pos_emb,
)


class Block(torch.nn.Module):
    def __init__(self, hidden=256, heads=4, inter=512, vocab=1024):
        super().__init__()
        cfg = types.SimpleNamespace(hidden_size=hidden, intermediate_size=inter, hidden_act="silu")
        self.heads, self.dim = heads, hidden // heads
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.norm1 = LigerRMSNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden, bias=False)
        self.proj = torch.nn.Linear(hidden, hidden, bias=False)
        self.norm2 = LigerRMSNorm(hidden)
        self.swiglu = LigerSwiGLUMLP(cfg)
        self.norm3 = LigerLayerNorm(hidden)
        self.geglu = LigerGEGLUMLP(cfg)
        self.gate = torch.nn.Linear(hidden, 8, bias=False)
        self.softmax = LigerSoftmax()
        self.head = torch.nn.Linear(hidden, vocab, bias=False)

    def rope(self, seq, device):
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2, device=device).float() / self.dim))
        ang = torch.outer(torch.arange(seq, device=device).float(), inv)
        emb = torch.cat([ang, ang], dim=-1)[None]
        return emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)

    def forward(self, tokens):
        b, s = tokens.shape
        x = self.embed(tokens)
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, self.dim).permute(2, 0, 3, 1, 4)
        cos, sin = self.rope(s, x.device)
        q, k = liger_rotary_pos_emb(q.contiguous(), k.contiguous(), cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, -1))
        x = x + self.swiglu(self.norm2(x))
        g = self.softmax(self.gate(x).float()).to(x.dtype)
        x = x + self.geglu(self.norm3(x)) * g[..., :1]
        return self.head(x)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    torch.manual_seed(0)
    model = Block().cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = LigerCrossEntropyLoss()
    tokens = torch.randint(0, 1024, (4, 128), device="cuda")
    for step in range(steps):
        logits = model(tokens[:, :-1])
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]).float(), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
