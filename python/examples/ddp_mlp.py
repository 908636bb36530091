#!/usr/bin/env python3
"""Data-parallel training of a small MLP with DDP, gradients averaged by
gsync (gsync.torch.ddp). One process per rank:

    GSYNC_RANK=R GSYNC_MEMBERS=A:P,B:P,C:P GSYNC_MCAST=239.1.1.1:7100 \
    python3 ddp_mlp.py [--steps 50] [--bf16-wire]

Each rank trains on its own shard of a synthetic regression task; after
every step the parameters are bit-identical on all ranks (the printed
digest prefix is the same everywhere).
"""
import argparse

import torch

import gsync
import gsync.torch as gt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--bf16-wire", action="store_true")
    a = ap.parse_args()
    g = gsync.Group.from_env(window=8)
    torch.manual_seed(g.rank)               # any init: ddp() copies rank 0's
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 4))
    ddp = gt.ddp(model, g, wire_dtype="bf16" if a.bf16_wire else None, bucket_cap_mb=1)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + g.rank)
    teacher = torch.Generator().manual_seed(7)
    w = torch.randn(16, 4, generator=teacher) / 4
    with g:
        for step in range(a.steps):
            x = torch.randn(32, 16, generator=data)
            loss = torch.nn.functional.mse_loss(ddp(x), torch.tanh(x @ w))
            opt.zero_grad()
            loss.backward()                  # buckets go out as they fill
            opt.step()
            if step % 10 == 0 or step == a.steps - 1:
                print(f"rank {g.rank} step {step} loss {loss.item():.4f} "
                      f"params {gt.state_digest(model)[:16]}")


if __name__ == "__main__":
    main()
