# gil_service.py - the seeds' Python service for t_diagnose_gil.sh:
#   python3 gil_service.py SOCKET READY
# uvicorn + FastAPI + PyTorch from Debian's packages, on the Unix socket
# SOCKET.  GET /infer runs preprocess(), pure-Python tokenisation (it holds
# the GIL throughout), then a forward pass of a small model built here (no
# download), which releases the GIL inside torch.  The handler is a plain
# def, so FastAPI runs it on anyio's worker threads ("AnyIO worker
# thread"): concurrent requests serialize on the GIL while they
# preprocess.  READY is written once the server has started.  Its worker
# threads are never retired (anyio retires one idle for 10 s, at the next
# request): the test's client pauses between its warm-up and the window
# (while sonde starts), and the threads that warm-up started must be
# those that serve the window, as in a service busy throughout.
import os
import sys

import torch
import uvicorn
import anyio._backends._asyncio
from fastapi import FastAPI

torch.set_num_threads(1)
anyio._backends._asyncio.WorkerThread.MAX_IDLE_TIME = 24 * 3600
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 16)).eval()
app = FastAPI()


def preprocess(n):
    toks = []
    for i in range(n):
        toks.append((i * 2654435761) % 256)
    return toks


@app.get("/infer")
def infer():
    toks = preprocess(150000)
    x = torch.tensor(toks[:256], dtype=torch.float32).repeat(64, 1)
    with torch.no_grad():
        y = model(x)
    return {"tokens": len(toks), "y": float(y.sum())}


@app.on_event("startup")
def started():
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])


uvicorn.run(app, uds=sys.argv[1], log_level="warning")
