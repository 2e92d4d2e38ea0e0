# pyservice.py - the Python service of issues 32 and 33 (t_pyservice.sh):
# uvicorn + FastAPI + PyTorch from Debian's packages, a model built in
# code (nothing downloaded), two request paths:
#
#   GET /predict?text=...   classify(): tokenize() and featurize(), pure
#                           Python, then infer(), the model's forward pass
#                           (libtorch_cpu, BLAS)
#   GET /tokens?text=...    count_tokens(): tokenize() alone
#   GET /go                 a getpgid, the test's mark (after its warm-up)
#
# Each handler calls os.getppid() once per request (a syscall the test
# counts exactly).  Handlers are async: they run on the event loop in the
# main thread, and torch runs on one thread, so every stack of a request
# goes down to main.  Listens on 127.0.0.1, a port the kernel picks, and
# prints "ready PORT" once it accepts.
#
#   python3.11 pyservice.py
import asyncio
import os
import socket

import torch
import uvicorn
from fastapi import FastAPI

torch.set_num_threads(1)
torch.manual_seed(0)
WIDTH = 256
MODEL = torch.nn.Sequential(
    torch.nn.Linear(WIDTH, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 4)).eval()
app = FastAPI()


def tokenize(text):
    words = []
    for _ in range(400):
        for w in text.lower().replace(",", " ").split():
            words.append(sum(ord(c) * 31 ** i for i, c in enumerate(w)) % 1000003)
    return words


def featurize(tokens):
    v = [0.0] * WIDTH
    for t in tokens:
        v[t % WIDTH] += 1.0
    return torch.tensor([v] * 8)


def infer(x):
    with torch.no_grad():
        for _ in range(2):
            y = MODEL(x)
    return int(y.argmax(dim=1)[0])


@app.get("/predict")
async def classify(text: str):
    label = infer(featurize(tokenize(text)))
    os.getppid()
    return {"label": label}


@app.get("/tokens")
async def count_tokens(text: str):
    n = len(tokenize(text))
    os.getppid()
    return {"tokens": n}


@app.get("/go")
async def go():
    os.getpgid(0)   # the test's mark: the requests after it are counted
    return {}


def main():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, loop="asyncio", http="h11", log_level="warning",
                            access_log=False, lifespan="off")
    server = uvicorn.Server(config)

    async def serve():
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        print("ready", sock.getsockname()[1], flush=True)
        await task
    asyncio.run(serve())


main()
