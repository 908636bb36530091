#!/usr/bin/env python3
"""DiLoCo over gsync: each rank takes H inner AdamW steps on its own data,
then gsync.torch.OuterSync averages the pseudo-gradient and applies
Nesterov SGD. One process per rank:

    GSYNC_RANK=R GSYNC_MEMBERS=A:P,B:P,C:P GSYNC_MCAST=239.1.1.1:7100 \
    python3 diloco_mlp.py [--steps 100] [--every 5]

One all-reduce per H steps instead of one per step; after each outer step
the parameters are bit-identical on all ranks.
"""
import argparse

import torch

import gsync
import gsync.torch as gt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--every", type=int, default=5)
    a = ap.parse_args()
    g = gsync.Group.from_env()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 4))
    outer = gt.OuterSync(model, g, every=a.every)   # default: SGD lr 0.7, momentum 0.9, Nesterov
    inner = torch.optim.AdamW(model.parameters(), lr=3e-3)
    data = torch.Generator().manual_seed(1000 + g.rank)
    w = torch.randn(16, 4, generator=torch.Generator().manual_seed(7)) / 4
    with g:
        for step in range(a.steps):
            x = torch.randn(32, 16, generator=data)
            loss = torch.nn.functional.mse_loss(model(x), torch.tanh(x @ w))
            inner.zero_grad()
            loss.backward()
            inner.step()
            if outer.step():
                print(f"rank {g.rank} outer step {outer.syncs} loss {loss.item():.4f} "
                      f"params {gt.state_digest(model)[:16]}")


if __name__ == "__main__":
    main()
