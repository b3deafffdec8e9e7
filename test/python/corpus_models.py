"""The real-model corpus: architectures built the way users build them, exported with torch.onnx.

Every model is a `transformers` model class from a tiny config with random
init (nothing is downloaded), or a small hand-written torch module where
`transformers` has no such class (MobileNetV3). CNN weights are re-initialized
so that activations stay healthy: convolutions and linear layers get He
(Kaiming) init, batch norms scale 1 and shift 0, and their statistics are
measured on a random batch, so outputs have unit scale instead of shrinking
to 1e-23 through depth.

`export(spec, directory)` writes the ONNX file (never into the repository)
and returns its path; `CORPUS` lists every model, `FAST` the tiny subset the
default test suite runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch
import transformers as hf

SEED = 0
BATCH = 2
IMAGE = 32
TOKENS = 8
AUDIO_SAMPLES = 400
MEL_BINS, MEL_FRAMES = 8, 16
# Batch-norm statistics from BATCH x this many random inputs: a batch of 2 at
# a 1x1 feature map gives near-zero variances, whose huge scales amplify
# float rounding (an ill-conditioned model, not a faithful one).
CALIBRATION_DRAWS = 16


@dataclass(frozen=True)
class ModelSpec:
    """One corpus entry: how to build it, its inputs, and how to export it."""

    name: str
    family: str
    build: Callable[[], torch.nn.Module]
    inputs: Callable[[np.random.Generator], dict[str, np.ndarray]]
    opset: int = 17
    dynamo: bool = False
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)  # input -> {axis: name}
    cnn: bool = False  # re-initialize for healthy activations


class FirstOutput(torch.nn.Module):
    """A `transformers` model called with its inputs by name, returning only its first output tensor."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model
        self.input_names: list[str] = []

    def forward(self, *args):
        return self.model(**dict(zip(self.input_names, args)), return_dict=False)[0]


def _hf(config_class, model_class, **config) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        return FirstOutput(model_class(config_class(**config)))
    return build


def image(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"pixel_values": rng.standard_normal((BATCH, 3, IMAGE, IMAGE)).astype(np.float32)}


def tokens(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"input_ids": rng.integers(0, 100, (BATCH, TOKENS)).astype(np.int64)}


def encoder_decoder_tokens(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {**tokens(rng), "decoder_input_ids": rng.integers(0, 100, (BATCH, TOKENS // 2)).astype(np.int64)}


def audio(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"input_values": rng.standard_normal((BATCH, AUDIO_SAMPLES)).astype(np.float32)}


def mel(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"input_features": rng.standard_normal((BATCH, MEL_BINS, MEL_FRAMES)).astype(np.float32)}


BATCH_AXIS = {"pixel_values": {0: "batch"}}
TEXT_AXES = {"input_ids": {0: "batch", 1: "sequence"}}
TEXT = dict(vocab_size=100, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
            max_position_embeddings=32)


class HardSwishSE(torch.nn.Module):
    """A MobileNetV3 block: expand, depthwise, squeeze-and-excite with hard-sigmoid, project."""

    def __init__(self, channels: int, expanded: int):
        super().__init__()
        self.expand = torch.nn.Sequential(torch.nn.Conv2d(channels, expanded, 1, bias=False),
                                          torch.nn.BatchNorm2d(expanded), torch.nn.Hardswish())
        self.depthwise = torch.nn.Sequential(torch.nn.Conv2d(expanded, expanded, 3, padding=1, groups=expanded,
                                                             bias=False), torch.nn.BatchNorm2d(expanded),
                                             torch.nn.Hardswish())
        self.excite = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Conv2d(expanded, 8, 1),
                                          torch.nn.ReLU(), torch.nn.Conv2d(8, expanded, 1), torch.nn.Hardsigmoid())
        self.project = torch.nn.Sequential(torch.nn.Conv2d(expanded, channels, 1, bias=False),
                                           torch.nn.BatchNorm2d(channels))

    def forward(self, x):
        y = self.depthwise(self.expand(x))
        return x + self.project(y * self.excite(y))


class MobileNetV3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                        torch.nn.BatchNorm2d(16), torch.nn.Hardswish())
        self.blocks = torch.nn.Sequential(HardSwishSE(16, 32), HardSwishSE(16, 48))
        self.head = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))

    def forward(self, pixel_values):
        return self.head(self.blocks(self.stem(pixel_values)))


def _whisper_encoder() -> torch.nn.Module:
    config = hf.WhisperConfig(vocab_size=100, num_mel_bins=MEL_BINS, d_model=16, encoder_layers=2,
                              encoder_attention_heads=2, encoder_ffn_dim=32, decoder_layers=1,
                              decoder_attention_heads=2, decoder_ffn_dim=32, max_source_positions=MEL_FRAMES // 2,
                              pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)
    return FirstOutput(hf.WhisperModel(config).get_encoder())


VISION = dict(image_size=IMAGE, num_channels=3)
VIT = dict(VISION, patch_size=8, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32)

CORPUS: list[ModelSpec] = [
    ModelSpec("resnet", "CNN", _hf(hf.ResNetConfig, hf.ResNetModel, embedding_size=8, hidden_sizes=[8, 16],
                                   depths=[1, 1], layer_type="basic"), image, 13, dynamic=BATCH_AXIS, cnn=True),
    ModelSpec("resnet-dynamo", "CNN", _hf(hf.ResNetConfig, hf.ResNetModel, embedding_size=8, hidden_sizes=[8, 16],
                                          depths=[1, 1], layer_type="bottleneck"), image, 18, dynamo=True, cnn=True),
    ModelSpec("mobilenet-v1", "CNN", _hf(hf.MobileNetV1Config, hf.MobileNetV1Model, depth_multiplier=0.25,
                                         image_size=IMAGE), image, 13, cnn=True),
    ModelSpec("mobilenet-v2", "CNN", _hf(hf.MobileNetV2Config, hf.MobileNetV2Model, depth_multiplier=0.25,
                                         image_size=IMAGE), image, 13, dynamic=BATCH_AXIS, cnn=True),
    ModelSpec("mobilenet-v3", "CNN", MobileNetV3, image, 17, dynamic=BATCH_AXIS, cnn=True),
    ModelSpec("efficientnet", "CNN", _hf(hf.EfficientNetConfig, hf.EfficientNetModel, image_size=IMAGE,
                                         width_coefficient=0.1, depth_coefficient=0.1, hidden_dim=128), image, 13,
              cnn=True),
    ModelSpec("convnext", "CNN", _hf(hf.ConvNextConfig, hf.ConvNextModel, hidden_sizes=[8, 16], depths=[1, 1],
                                     num_stages=2), image, 17, cnn=True),
    ModelSpec("regnet", "CNN", _hf(hf.RegNetConfig, hf.RegNetModel, embedding_size=8, hidden_sizes=[8, 16],
                                   depths=[1, 1], groups_width=4), image, 13, cnn=True),
    ModelSpec("vit", "vision transformer", _hf(hf.ViTConfig, hf.ViTModel, **VIT), image, 17, dynamic=BATCH_AXIS),
    ModelSpec("deit", "vision transformer", _hf(hf.DeiTConfig, hf.DeiTModel, **VIT), image, 14),
    ModelSpec("swin", "vision transformer", _hf(hf.SwinConfig, hf.SwinModel, **VISION, patch_size=4, embed_dim=8,
                                                depths=[1, 1], num_heads=[2, 2], window_size=4), image, 17),
    ModelSpec("mobilevit", "vision transformer", _hf(hf.MobileViTConfig, hf.MobileViTModel, **VISION,
                                                     hidden_sizes=[16, 16, 16], neck_hidden_sizes=[8, 8, 8, 8, 8, 8, 16],
                                                     num_attention_heads=2), image, 17, cnn=True),
    ModelSpec("segformer", "segmentation", _hf(hf.SegformerConfig, hf.SegformerModel, num_encoder_blocks=2,
                                               depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16],
                                               num_attention_heads=[1, 2], mlp_ratios=[2, 2], patch_sizes=[7, 3],
                                               strides=[4, 2]), image, 17),
    ModelSpec("detr", "detection", _hf(hf.DetrConfig, hf.DetrModel, use_timm_backbone=False, use_pretrained_backbone=False,
                                       backbone_config=hf.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16],
                                                                       depths=[1, 1], out_features=["stage2"]),
                                       d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                       decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                                       num_queries=4), image, 17),
    ModelSpec("bert", "text encoder", _hf(hf.BertConfig, hf.BertModel, **TEXT), tokens, 14, dynamic=TEXT_AXES),
    ModelSpec("bert-dynamo", "text encoder", _hf(hf.BertConfig, hf.BertModel, **TEXT), tokens, 18, dynamo=True),
    ModelSpec("distilbert", "text encoder", _hf(hf.DistilBertConfig, hf.DistilBertModel, vocab_size=100, dim=16,
                                                n_layers=2, n_heads=2, hidden_dim=32, max_position_embeddings=32),
              tokens, 14, dynamic=TEXT_AXES),
    ModelSpec("roberta", "text encoder", _hf(hf.RobertaConfig, hf.RobertaModel, **TEXT, pad_token_id=1), tokens, 17),
    ModelSpec("gpt2", "text decoder", _hf(hf.GPT2Config, hf.GPT2Model, vocab_size=100, n_embd=16, n_layer=2, n_head=2,
                                          n_positions=32), tokens, 14, dynamic=TEXT_AXES),
    ModelSpec("t5", "encoder-decoder", _hf(hf.T5Config, hf.T5Model, vocab_size=100, d_model=16, d_kv=8, d_ff=32,
                                           num_layers=1, num_heads=2, decoder_start_token_id=0),
              encoder_decoder_tokens, 17),
    ModelSpec("bart", "encoder-decoder", _hf(hf.BartConfig, hf.BartModel, vocab_size=100, d_model=16, encoder_layers=1,
                                             decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                                             encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32),
              encoder_decoder_tokens, 17),
    ModelSpec("wav2vec2", "speech", _hf(hf.Wav2Vec2Config, hf.Wav2Vec2Model, hidden_size=16, num_hidden_layers=1,
                                        num_attention_heads=2, intermediate_size=32, conv_dim=(8, 8),
                                        conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=4,
                                        num_conv_pos_embedding_groups=2), audio, 17),
    ModelSpec("whisper-encoder", "speech", _whisper_encoder, mel, 17),
]
FAST = ["resnet", "vit", "bert", "gpt2", "wav2vec2"]


def build(spec: ModelSpec) -> torch.nn.Module:
    """The model in eval mode with seeded weights (healthy ones for CNNs)."""
    torch.manual_seed(SEED)
    model = spec.build().eval()
    if isinstance(model, FirstOutput):
        model.input_names = list(spec.inputs(np.random.default_rng(SEED)))
    if spec.cnn:
        healthy_init(model, spec)
    return model


def healthy_init(model: torch.nn.Module, spec: ModelSpec) -> None:
    """He init for convolutions and linear layers; batch-norm scale 1 and shift 0 (transformers' EfficientNet
    draws the scales from N(0, 0.02), which shrinks every block's output 50-fold) and statistics measured on a
    random batch."""
    for module in model.modules():
        if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
            torch.nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        if isinstance(module, torch.nn.BatchNorm2d):
            module.reset_parameters()  # running statistics too
            module.momentum = None  # a cumulative average over the calibration pass
    rng = np.random.default_rng(SEED + 1)
    draws = [spec.inputs(rng) for _ in range(CALIBRATION_DRAWS)]
    batch = {name: np.concatenate([draw[name] for draw in draws]) for name in draws[0]}
    model.train()
    with torch.no_grad():
        model(*_tensors(batch).values())
    model.eval()


def _tensors(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {name: torch.from_numpy(array) for name, array in arrays.items()}


def export(spec: ModelSpec, directory: Path) -> Path:
    """Export `spec` with torch.onnx (legacy or dynamo exporter) into `directory`; the file's path."""
    model = build(spec)
    inputs = _tensors(spec.inputs(np.random.default_rng(SEED)))
    path = directory / f"{spec.name}.onnx"
    with torch.no_grad():
        torch.onnx.export(model, tuple(inputs.values()), str(path), input_names=list(inputs), output_names=["output"],
                          opset_version=spec.opset, dynamo=spec.dynamo, external_data=False,
                          **({} if spec.dynamo else {"dynamic_axes": spec.dynamic or None}))
    return path


def by_name(name: str) -> ModelSpec:
    return next(spec for spec in CORPUS if spec.name == name)
