"""Parameter-count drills for BERT and GPT configs, textbook (weights only) or exact."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, answer_line, num
from checkers.configs import CONFIGS, Component, Convention, Family, ModelConfig
from checkers.said import N_, Said, _, join
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

COMPONENTS: tuple[Component, ...] = get_args(Component)

ASK = {
    "total": N_("the model's parameters in all"),
    "embeddings": N_("the embedding layer's parameters (the embedding matrices summed{exact})"),
    "token_embedding": N_("the Token Embedding's parameters"),
    "position_embedding": N_("the Position Embedding's parameters"),
    "segment_embedding": N_("the Segment Embedding's parameters"),
    "attention": N_("the parameters of **one layer**'s self-attention (the four projections Q/K/V/O{exact})"),
    "ffn": N_("the parameters of **one layer**'s FFN (d → d_ff → d{exact})"),
    "layer": N_("the parameters of **one** Transformer block (attention + FFN{exact})"),
    "encoder": N_("the parameters of all L blocks together{exact}"),
    "pooler": N_("the Pooler's parameters (dense + tanh on [CLS]{exact})"),
    "mlm_head": N_("the MLM head's parameters ({exact}; the decoder matrix is shared with the word embeddings, not counted again)"),
    "nsp_head": N_("the parameters of the NSP head Linear(d, 2){exact}"),
    "embedding_share": N_("the embedding layer's share of the model's parameters (as a decimal)"),
}

# What each convention says about a part in the question, so it states one convention only.
PART = {
    "textbook": {"mlm_head": N_("the dense weight matrix only")},
    "exact": {
        "embeddings": N_(", with the LayerNorm after them"),
        "attention": N_(", with biases"),
        "ffn": N_(", with biases"),
        "layer": N_(", with biases and both LayerNorms"),
        "pooler": N_(", with biases"),
        "mlm_head": N_("dense + LayerNorm + output bias"),
        "nsp_head": N_(" (with biases)"),
    },
}


def ask(component: Component, convention: Convention, cfg: ModelConfig) -> str:
    """The question for one part under one convention, never mentioning the other."""
    part = _(PART[convention][component]) if component in PART[convention] else ""
    if convention == "exact" and component == "embeddings" and cfg.family != "bert":
        part = ""  # GPT-2 feeds the sum straight to the first block: no LayerNorm here
    if convention == "exact" and component == "encoder" and cfg.pre_norm:
        part = _(" (with the last LayerNorm)")
    return _(ASK[component]).format(exact=part)


def convention_text(convention: Convention, cfg: ModelConfig) -> str:
    """The convention as a prompt states it, for this model (DistilBERT has no pooler)."""
    if convention == "textbook":
        pooler = _("; the total leaves out the pooler") if not cfg.lacks("pooler") else ""
        return _("**The course table's convention**: weight matrices only, no biases and no LayerNorm{pooler}.").format(pooler=pooler)
    if cfg.family == "gpt":
        total = _("the output layer shares the word embeddings' weights, counted once")
    elif cfg.lacks("pooler"):
        total = _("total = the {model} model itself (it has no pooler and no NSP head), without the MLM head").format(model=cfg.name)
    else:
        total = _("BERT's total = BertModel (with the pooler, without the MLM/NSP heads)")
    return _("**The exact convention**: every bias and LayerNorm counted; {total}.").format(total=total)


@dataclass(frozen=True, kw_only=True)
class ParamCountParams(Strict):
    """family / models / random_sizes: which models a question may name (models, when given, are
    the only ones); precision: exact integer, an estimate in M to `decimals` places, or an
    estimate to `digits` significant digits (1: the order of magnitude)."""

    family: Literal["bert", "gpt", "any"] = "any"
    convention: Literal["textbook", "exact", "any"] = "any"
    components: Annotated[list[Component], Field(min_length=1)] = field(default_factory=lambda: list(COMPONENTS))
    models: list[str] = field(default_factory=list)
    random_sizes: bool = True  # False: only the named configs (bert-base-uncased, gpt2, ...)
    precision: Literal["exact", "relative", "millions", "significant"] = "exact"
    relative: Annotated[float, Field(gt=0, lt=1)] = 0.01  # used when precision == "relative"
    decimals: Annotated[int, Field(ge=0, le=3)] = 1  # used when precision == "millions"
    digits: Annotated[int, Field(ge=1, le=4)] = 2  # used when precision == "significant"

    def check(self) -> None:
        unknown = [m for m in self.models if m not in CONFIGS]
        if unknown:
            raise ValueError(Said("unknown model(s) {models}; known: {known}", models=unknown, known=list(CONFIGS)))
        other = [m for m in self.models if self.family not in ("any", CONFIGS[m].family)]
        if other:
            raise ValueError(Said("model(s) {models} are not of family {family}", models=other, family=self.family))
        if not any(candidates(self)):
            raise ValueError(Said("no {family} model in reach has any of {components}", family=self.family, components=list(self.components)))


def _has_some(cfg: ModelConfig, components: list[Component]) -> bool:
    return any(not cfg.lacks(c) for c in components)


def candidates(params: ParamCountParams) -> tuple[list[str], list[Family]]:
    """(named configs, families of random sizes) a question may be drawn from: each has at least
    one of the asked components, so no draw falls back to a part the card is not about."""
    families: list[Family] = ["bert", "gpt"] if params.family == "any" else [params.family]
    named = [
        n for n, c in CONFIGS.items()
        if c.family in families and (not params.models or n in params.models) and _has_some(c, params.components)
    ]  # fmt: skip
    if params.models or not params.random_sizes:
        return named, []
    probe = {f: ParamCountInputs(family=f, layers=1, hidden=64, vocab=1).config() for f in families}
    return named, [f for f in families if _has_some(probe[f], params.components)]


@dataclass(frozen=True, kw_only=True)
class ParamCountInputs(Strict):
    """A named config (`model`), optionally with fields overridden, or every size given explicitly."""

    model: str | None = None
    family: Family | None = None
    layers: Annotated[int | None, Field(ge=1, le=LAYERS_MAX)] = None
    hidden: Annotated[int | None, Field(ge=1)] = None
    heads: Annotated[int | None, Field(ge=1)] = None
    ffn: Annotated[int | None, Field(ge=1)] = None
    vocab: Annotated[int | None, Field(ge=1)] = None
    positions: Annotated[int | None, Field(ge=1)] = None
    segments: Annotated[int | None, Field(ge=0)] = None
    component: Component = "total"
    convention: Convention = "exact"

    def check(self) -> None:
        if self.model is not None and self.model not in CONFIGS:
            raise ValueError(Said("unknown model '{model}'; known: {known}", model=self.model, known=list(CONFIGS)))
        cfg = self.config()  # also rejects a custom config without family, layers, hidden or vocab
        if cfg.lacks(self.component):
            raise ValueError(Said("{name} has no {component}", name=cfg.name, component=self.component))
        if cfg.hidden % cfg.heads:
            raise ValueError(Said("hidden {hidden} is not divisible by heads {heads}", hidden=cfg.hidden, heads=cfg.heads))

    def config(self) -> ModelConfig:
        sizes = {f: getattr(self, f) for f in ("layers", "hidden", "heads", "ffn", "vocab", "positions", "segments")}
        given = {k: v for k, v in sizes.items() if v is not None}
        if self.model is not None:
            return replace(CONFIGS[self.model], **given)
        family, layers, hidden, vocab = self.family, self.layers, self.hidden, self.vocab
        if family is None or layers is None or hidden is None or vocab is None:
            raise ValueError(Said("without `model`, give at least family, layers, hidden and vocab"))
        bert = family == "bert"
        return ModelConfig(
            name=_("custom {family}").format(family=family.upper()),
            family=family,
            vocab=vocab,
            positions=given.get("positions", 512 if bert else 1024),
            segments=given.get("segments", 2 if bert else 0),
            layers=layers,
            hidden=hidden,
            heads=given.get("heads", max(1, hidden // 64)),
            ffn=given.get("ffn", 4 * hidden),
            pre_norm=not bert,
            pooler=bert,
        )


def formulas(cfg: ModelConfig, convention: str) -> dict[str, str]:
    """How each count is made up, for the worked table (numbers come from the reference)."""
    V, P, T, d, f, L = cfg.vocab, cfg.positions, cfg.segments, cfg.hidden, cfg.ffn, cfg.layers
    exact = convention == "exact"
    ln = f" + 2×{d}" + _(" (LayerNorm)") if exact else ""
    rows = {
        "token_embedding": f"{V} × {d}",
        "position_embedding": f"{P} × {d}",
        "segment_embedding": f"{T} × {d}",
        "embeddings": f"({V} + {P} + {T}) × {d}" + (ln if cfg.family == "bert" else ""),
        "attention": f"4 × ({d}×{d} + {d})" if exact else f"4 × {d} × {d}",
        "ffn": f"{d}×{f} + {f} + {f}×{d} + {d}" if exact else f"2 × {d} × {f}",
        "layer": "attention + FFN" + (f" + 2 × 2×{d}" + _(" (both LayerNorms)") if exact else ""),
        "encoder": _("{layers} × a layer").format(layers=L) + (f" + 2×{d}" + _(" (the final LayerNorm)") if exact and cfg.pre_norm else ""),
        "pooler": f"{d}×{d} + {d}" if exact else f"{d} × {d}" + _(" (not in the total)"),
        "total": "embeddings + encoder" + (" + pooler" if exact and not cfg.lacks("pooler") else ""),
        "mlm_head": f"{d}×{d} + {d} + 2×{d} + {V}" + _(" (bias)") if exact else f"{d} × {d}" + _(" (the decoder matrix shared)"),
        "nsp_head": f"2×{d} + 2" if exact else f"2 × {d}",
    }
    return {k: v for k, v in rows.items() if not cfg.lacks(k)}


class ParamCount(BaseChecker[ParamCountParams, ParamCountInputs, int | float]):
    name = "param_count"
    description = Said("Parameter counts: a BERT/GPT part or the total (by the course table's or the exact convention), and the "
                       "embeddings' share")
    Params = ParamCountParams
    Inputs = ParamCountInputs

    def compose(self, rng: random.Random, params: ParamCountParams) -> tuple[ParamCountInputs, str]:
        convention: Convention = params.convention if params.convention != "any" else rng.choice(["textbook", "exact"])
        named, random_families = candidates(params)
        if random_families and (not named or rng.random() < 0.5):
            family = rng.choice(random_families)
            hidden = rng.choice([256, 384, 512, 768, 1024])
            probe = ParamCountInputs(
                family=family,
                layers=rng.choice([2, 4, 6, 8, 12, 24]),
                hidden=hidden,
                heads=hidden // 64,
                vocab=rng.choice([21128, 30522, 32000, 50257]),
                positions=512 if family == "bert" else rng.choice([512, 1024]),
                convention=convention,
            )
        else:
            probe = ParamCountInputs(model=rng.choice(named), convention=convention)
        allowed = [c for c in params.components if not probe.config().lacks(c)]
        inputs = probe.model_copy(update={"component": rng.choice(allowed)})
        cfg = inputs.config()
        if cfg.family == "bert":
            arch = _("BERT-style (encoder-only, post-norm)")
        else:
            arch = (_("GPT-2-style (decoder-only, pre-norm + a final LayerNorm)") if cfg.pre_norm else
                    _("GPT-1 (decoder-only, post-norm)"))
        prompt = _("The model **{model}**: {arch}, {sizes}.\n\n{convention}\n\nFind {what}.").format(
            model=cfg.name, arch=arch, sizes=cfg.describe(), convention=convention_text(convention, cfg),
            what=ask(inputs.component, convention, cfg))
        return inputs, prompt

    def why_out_of_range(self, params: ParamCountParams, inputs: ParamCountInputs) -> str | None:
        cfg = inputs.config()
        if params.models and inputs.model not in params.models:
            return Said("drew {got}; the card is about {wanted}", got=cfg.name, wanted=list(params.models))
        if params.family != "any" and cfg.family != params.family:
            return Said("drew a {got} model; the card is about {wanted}", got=cfg.family, wanted=params.family)
        if params.convention != "any" and inputs.convention != params.convention:
            return Said("drew the {got} convention; the card is about {wanted}", got=inputs.convention, wanted=params.convention)
        if inputs.component not in params.components:
            return Said("asks for {got}; the card is about {wanted}", got=inputs.component, wanted=list(params.components))
        if not params.random_sizes and inputs.model is None:
            return Said("drew random sizes; the card names only real models")
        return None

    def solve(self, inputs: ParamCountInputs) -> int | float:
        from checkers import reference

        counts = reference.parameter_breakdown(inputs.config(), inputs.convention)
        if inputs.component == "embedding_share":
            return counts["embeddings"] / counts["total"]
        return counts[inputs.component]

    def other_accepted(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> tuple[float, ...]:
        """An estimate ("约多少": significant digits) of a named model's total also takes the figures
        its paper and its name give (GPT-2 XL: 1542M, 1.5B), graded at the same digits."""
        if tolerance.kind != "significant" or inputs.component != "total" or inputs.model is None:
            return ()
        cfg = inputs.config()
        return cfg.published if cfg == CONFIGS[inputs.model] else ()

    def tolerance(self, params: ParamCountParams, inputs: ParamCountInputs) -> Tolerance:
        if inputs.component == "embedding_share":
            return Tolerance("decimals", 3)
        if params.precision == "millions":
            return Tolerance("unit", params.decimals, unit="M")
        if params.precision == "significant":
            return Tolerance("significant", params.digits)
        return Tolerance("exact") if params.precision == "exact" else Tolerance("relative", relative=params.relative)

    def explain(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> str:
        from checkers import reference

        cfg = inputs.config()
        counts = reference.parameter_breakdown(cfg, inputs.convention)
        rows = [_("| Part | Computed as | Parameters |"), "| --- | --- | --- |"]
        for part, formula in formulas(cfg, inputs.convention).items():
            mark = "**" if part == inputs.component else ""
            rows.append(f"| {mark}{part}{mark} | {formula} | {mark}{counts[part]:,}{mark} |")
        share = ""
        if inputs.component == "embedding_share":
            share = "\n\n" + _("Embeddings' share = ") + f"{counts['embeddings']:,} / {counts['total']:,} = {num(answer)}"
        return (
            f"{convention_text(inputs.convention, cfg)}\n\n" + "\n".join(rows) + share
            + "\n\n" + answer_line(tolerance.format(answer))
            + (_(" (exactly {count:,})").format(count=answer) if tolerance.kind in ("unit", "significant", "relative") else "")
            + self._published(inputs, answer, tolerance)
        )

    def _published(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> str:
        figures = self.other_accepted(inputs, answer, tolerance)
        if not figures:
            return ""
        return _("; the paper's and the common figures {figures} count as right too").format(
            figures=join(Tolerance("significant", 4).format(f) for f in figures))
