"""Training scripts the probe tests run under `gpu-advisor monitor`, as real commands.

Each script also times its own loop with time.perf_counter (an independent clock around the same
work) and writes those times to the JSON file named by its first argument, so a test can check the
probe against what the script itself saw.
"""

PLAIN_LOOP = r"""
import json, sys, time
import torch
from torch.utils.data import DataLoader, Dataset
from gpu_advisor import probe

SLEEP_S = float(sys.argv[2])  # in __getitem__: an artificially slow input pipeline

class Data(Dataset):
    def __len__(self):
        return 96
    def __getitem__(self, i):
        if SLEEP_S:
            time.sleep(SLEEP_S)
        g = torch.Generator().manual_seed(i)
        return torch.randn(64, generator=g), torch.randint(0, 4, (), generator=g)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 4))
optimiser = torch.optim.AdamW(model.parameters())
loader = DataLoader(Data(), batch_size=8)
own = {"epochs": []}
for epoch in range(2):
    steps, wait = [], 0.0
    start = time.perf_counter()
    t = start
    for x, y in probe.wrap(loader):
        got = time.perf_counter()
        wait += got - t
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        for _ in range(4):  # about 10 ms of work per step on these machines
            model(torch.randn(256, 64)).sum().backward()
        probe.step(samples=len(x))
        now = time.perf_counter()
        steps.append(now - t)
        t = now
    probe.epoch_end()
    own["epochs"].append({"steps": steps, "time_s": time.perf_counter() - start, "data_wait_s": wait})
own["parameter_bytes"] = sum(p.numel() * p.element_size() for p in model.parameters())
with open(sys.argv[1], "w") as f:
    json.dump(own, f)
"""
