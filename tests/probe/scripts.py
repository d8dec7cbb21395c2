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

# An artificially slow input pipeline: each batch waits this many times the previous step's work (a
# ratio, not a fixed sleep, so that the wait's share of a step is the same on a fast machine and on a
# loaded 2-core one, where the work takes several times longer).
WAIT_PER_WORK = float(sys.argv[2])
BATCH = 8
work_s = 0.01  # the previous step's work; this guess for the first batch

class Data(Dataset):
    def __len__(self):
        return 96
    def __getitem__(self, i):
        if WAIT_PER_WORK:
            time.sleep(WAIT_PER_WORK * work_s / BATCH)
        g = torch.Generator().manual_seed(i)
        return torch.randn(64, generator=g), torch.randint(0, 4, (), generator=g)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 4))
optimiser = torch.optim.AdamW(model.parameters())
loader = DataLoader(Data(), batch_size=BATCH)
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
        work_s = now - got
        steps.append(now - t)
        t = now
    probe.epoch_end()
    own["epochs"].append({"steps": steps, "time_s": time.perf_counter() - start, "data_wait_s": wait})
own["parameter_bytes"] = sum(p.numel() * p.element_size() for p in model.parameters())
with open(sys.argv[1], "w") as f:
    json.dump(own, f)
"""

# A tiny randomly initialised GPT-2 built from a config in code (nothing downloaded), trained for two
# epochs of 8 optimiser steps by transformers.Trainer with the probe's callback.
HF_TRAINER = r"""
import json, sys, time
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
from gpu_advisor.probe.hf import GpuAdvisorCallback

# An artificially slow dataset: each batch of 4 waits this many times the previous step's work (a
# ratio, not a fixed sleep, so that the wait's share of a step, and the Trainer's own overhead beside
# it, are the same on a fast machine and on a loaded 2-core one, where the work takes longer).
WAIT_PER_WORK = float(sys.argv[2])
BATCH = 4
getitem_s = 0.0
work_s = 0.02  # the previous step's work; this guess for the first batch

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        global getitem_s
        t = time.perf_counter()
        if WAIT_PER_WORK:
            time.sleep(WAIT_PER_WORK * work_s / BATCH)
        ids = torch.randint(0, 128, (32,), generator=torch.Generator().manual_seed(i))
        getitem_s += time.perf_counter() - t
        return {"input_ids": ids, "labels": ids}

class StepWork(TrainerCallback):
    # the script's own clock of each step's work (on_step_begin to on_step_end)
    def on_step_begin(self, args, state, control, **kwargs):
        self.begun = time.perf_counter()
    def on_step_end(self, args, state, control, **kwargs):
        global work_s
        work_s = time.perf_counter() - self.begun

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=128, n_positions=32))
args = TrainingArguments(
    output_dir=sys.argv[1] + ".out", num_train_epochs=2, per_device_train_batch_size=BATCH,
    logging_strategy="no", save_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True,
    dataloader_num_workers=0, include_num_input_tokens_seen=True,
)
start = time.perf_counter()
Trainer(model=model, args=args, train_dataset=Data(), callbacks=[StepWork(), GpuAdvisorCallback()]).train()
with open(sys.argv[1], "w") as f:
    json.dump({
        "train_s": time.perf_counter() - start,
        "getitem_s": getitem_s,
        "parameter_bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
    }, f)
"""

# The same kind of model as a LightningModule, two epochs of 8 batches with the probe's callback.
LIGHTNING = r"""
import json, sys, time
import torch
import lightning
from gpu_advisor.probe.lightning import GpuAdvisorCallback

class Model(lightning.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 4))
    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)
    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters())

torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(64, 64), torch.randint(0, 4, (64,)))
model = Model()
trainer = lightning.Trainer(
    max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
    enable_progress_bar=False, enable_model_summary=False, callbacks=[GpuAdvisorCallback()],
)
start = time.perf_counter()
trainer.fit(model, torch.utils.data.DataLoader(data, batch_size=8))
with open(sys.argv[1], "w") as f:
    json.dump({
        "train_s": time.perf_counter() - start,
        "parameter_bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
    }, f)
"""
