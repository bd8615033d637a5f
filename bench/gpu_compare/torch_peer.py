"""PyTorch's half of bench/gpu_compare: one model's training steps on the GPU.

    torch_peer.py --check
    torch_peer.py {resnet50,bert} --batch B [--seq S] --tf32 {on,off} --steps N --warmup W

--check prints {"torch": ..., "device": ...} as JSON, or says on stderr what is
missing (PyTorch, torchvision, a CUDA device) and exits 1. Otherwise it runs
W + N steps and prints one JSON line: the N step times after the warm-up,
in ms, and the last loss. Run it as a process of its own per TF32 setting:
NVIDIA_TF32_OVERRIDE is read when cuBLAS and cuDNN load, so the caller sets
it in this process's environment; --tf32 sets PyTorch's own flags to match.

The models are those of tests/fixtures/tf/{resnet50,bert}_train (written by
tools/tf_fixtures/cases_timing.py), with PyTorch's own weight initializers:
- resnet50: torchvision's ResNet-50 (v1.5: the stride on the 3x3 conv),
  channels_last (TensorFlow's NHWC), SGD(0.1, momentum 0.9), mean
  cross-entropy; batch norm in training mode (eps 1e-5, momentum 0.9 in
  TensorFlow's sense).
- bert: a BERT-base encoder written below with torch.nn as the fixture's
  graph is: word and position embeddings (no token types), post-norm layers
  (eps 1e-6) with separate query/key/value projections, the attention as
  matmul-softmax-matmul with the additive mask, tanh GELU, no dropout, a
  tanh pooler on the first token, a 2-way classifier, Adam(1e-4, eps 1e-6).

As `minitf run` feeds its inputs from host memory every step, each step here
copies its inputs from host memory to the GPU too.
"""

import argparse
import json
import math
import statistics
import sys
import time


def Fail(message):
    print(f"torch_peer: {message}", file=sys.stderr)
    sys.exit(1)


try:
    import torch
    import torch.nn.functional as F
    from torch import nn
except ImportError as e:
    Fail(f"PyTorch is not installed for {sys.executable} ({e}): "
         "bench/gpu_compare needs it (set PYTHON to an interpreter that has it)")

# BERT-base, as tools/tf_fixtures/cases_timing.py's bert_train.
HIDDEN, HEADS, INTERMEDIATE, LAYERS, VOCAB, MAX_POSITIONS, CLASSES = 768, 12, 3072, 12, 30522, 512, 2


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value, self.attention_output = (
            nn.Linear(HIDDEN, HIDDEN) for _ in range(4))
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=1e-6)
        self.intermediate = nn.Linear(HIDDEN, INTERMEDIATE)
        self.output = nn.Linear(INTERMEDIATE, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=1e-6)

    def forward(self, h, mask_bias):  # h [batch, seq, hidden]; mask_bias [batch, 1, 1, seq]
        batch, seq, _ = h.shape
        depth = HIDDEN // HEADS

        def Split(x):  # -> [batch, heads, seq, depth]
            return x.view(batch, seq, HEADS, depth).transpose(1, 2)

        q, k, v = Split(self.query(h)), Split(self.key(h)), Split(self.value(h))
        probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(depth) + mask_bias, dim=-1)
        context = (probs @ v).transpose(1, 2).reshape(batch, seq, HIDDEN)
        h = self.attention_norm(h + self.attention_output(context))
        ffn = self.output(F.gelu(self.intermediate(h), approximate="tanh"))
        return self.output_norm(h + ffn)


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position_embeddings = nn.Parameter(torch.randn(MAX_POSITIONS, HIDDEN) * 0.02)
        self.embedding_norm = nn.LayerNorm(HIDDEN, eps=1e-6)
        self.layers = nn.ModuleList(EncoderLayer() for _ in range(LAYERS))
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.classifier = nn.Linear(HIDDEN, CLASSES)

    def forward(self, ids, mask):
        seq = ids.shape[1]
        h = self.embedding_norm(self.word_embeddings(ids) + self.position_embeddings[:seq])
        mask_bias = ((1.0 - mask.float()) * -10000.0)[:, None, None, :]
        for layer in self.layers:
            h = layer(h, mask_bias)
        return self.classifier(torch.tanh(self.pooler(h[:, 0])))


def ResNet50Step(batch, device):
    """A closure running one training step; the inputs start in host memory."""
    try:
        import torchvision
    except ImportError as e:
        Fail(f"torchvision is not installed for {sys.executable} ({e}): the ResNet-50 peer needs it")
    model = torchvision.models.resnet50(weights=None).to(device, memory_format=torch.channels_last)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    images = torch.randn(batch, 224, 224, 3)  # NHWC, as the fixture's images:0
    labels = torch.randint(0, 1000, (batch,), dtype=torch.int32)

    def Step():
        # NHWC in memory, seen as NCHW: a channels_last tensor, no copy.
        x = images.to(device).permute(0, 3, 1, 2)
        y = labels.to(device).long()
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return Step


def BertStep(batch, seq, device):
    model = Bert().to(device).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-6)
    ids = torch.randint(0, VOCAB, (batch, seq), dtype=torch.int32)
    mask = torch.ones(batch, seq, dtype=torch.int32)
    labels = torch.randint(0, CLASSES, (batch,), dtype=torch.int32)

    def Step():
        logits = model(ids.to(device).long(), mask.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(logits, labels.to(device).long())
        loss.backward()
        optimizer.step()
        return loss
    return Step


def TimeSteps(step, warmup, steps):
    """Each step's wall time, synchronised with the GPU before and after."""
    times_ms, loss = [], None
    for _ in range(warmup + steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times_ms.append((time.perf_counter() - start) * 1e3)
    return times_ms[warmup:], loss.item()


def Main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", choices=["resnet50", "bert"])
    parser.add_argument("--check", action="store_true", help="only say what PyTorch sees")
    parser.add_argument("--batch", type=int)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--tf32", choices=["on", "off"], default="on")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        Fail(f"PyTorch {torch.__version__} sees no CUDA device: bench/gpu_compare needs a GPU")
    if args.check:
        print(json.dumps({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                          "device": torch.cuda.get_device_name(0)}))
        return
    if args.model is None or args.batch is None or args.steps < 1 or args.warmup < 0:
        parser.error("wants a model, --batch, --steps >= 1 and --warmup >= 0")

    tf32 = args.tf32 == "on"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True  # autotuned convolutions, as minitf's
    torch.manual_seed(0)
    device = torch.device("cuda")
    if args.model == "resnet50":
        step = ResNet50Step(args.batch, device)
    else:
        step = BertStep(args.batch, args.seq, device)
    times_ms, loss = TimeSteps(step, args.warmup, args.steps)
    print(json.dumps({"model": args.model, "tf32": args.tf32, "step_ms": times_ms,
                      "median_ms": statistics.median(times_ms), "loss": loss}))


if __name__ == "__main__":
    Main()
