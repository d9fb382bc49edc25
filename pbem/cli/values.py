"""Command-line values converted without pydantic.

The Typer this project runs on converts every parameter's value through a
pydantic ``TypeAdapter``; importing pydantic and building the adapters costs
about 0.2 CPU seconds, more than the rest of ``pbem sign``'s start-up together
(docs/performance.md, "Start-up").  pbem's parameters are all plain: ``str``,
``int``, ``float``, ``bool``, ``Path``, ``Optional`` of those and ``list`` of those.  This
module gives each such parameter a converter of its own before Typer asks for
one, so pydantic is never imported; a parameter of any other type keeps Typer's
own conversion.  Errors read as Typer's do (exit status 2, the parameter named).

tests/test_startup.py checks that no command imports pydantic, so a Typer
release that changes how parameters are converted is noticed at once.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import typer

try:  # Typer's parameter conversion (typer/_coercion.py); absent from other releases
    from typer._coercion import RuntimeParam
except ImportError:  # pragma: no cover - another Typer: its own conversion stays
    RuntimeParam = None  # type: ignore[assignment,misc]

PLAIN = (str, int, float, bool, Path)


def _plain(annotation: Any) -> tuple[type, bool] | None:
    """(the element type, whether it is a list) of a plain annotation, else None."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return _plain(members[0]) if len(members) == 1 else None
    if origin in (list, tuple) and origin is not None:
        args = get_args(annotation)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return None
        inner = _plain(args[0]) if args else None
        return (inner[0], True) if inner is not None and not inner[1] else None
    if annotation in PLAIN:
        return annotation, False
    return None


def _convert(kind: type, value: Any, param: Any, ctx: Any) -> Any:
    if isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool)):
        converted = value
    elif kind is str:
        converted = str(value)
    elif kind is Path:
        converted = Path(value)
    elif kind is int:
        try:
            converted = int(str(value).strip(), 10)
        except ValueError:
            raise typer.BadParameter(f"{value!r} is not a valid integer.", ctx=ctx, param=param) from None
    elif kind is float:
        try:
            converted = float(str(value).strip())
        except ValueError:
            raise typer.BadParameter(f"{value!r} is not a valid float.", ctx=ctx, param=param) from None
    elif kind is bool:
        text = str(value).strip().lower()
        if text not in ("1", "0", "true", "false", "yes", "no", "on", "off", "y", "n", "t", "f"):
            raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
        converted = text in ("1", "true", "yes", "on", "y", "t")
    else:  # pragma: no cover - _plain admits nothing else
        raise TypeError(kind)
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if kind in (int, float) and ((low is not None and converted < low) or (high is not None and converted > high)):
        bounds = (
            f"{low}<=x<={high}"
            if low is not None and high is not None
            else (f"x>={low}" if low is not None else f"x<={high}")
        )
        raise typer.BadParameter(f"{converted} is not in the range {bounds}.", ctx=ctx, param=param)
    return converted


if RuntimeParam is not None:

    class PlainValue(RuntimeParam):
        """Typer's runtime conversion for one plain parameter, without pydantic."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            kind, many = _plain(self.annotation)  # type: ignore[misc]
            if many:
                return [_convert(kind, item, param, ctx) for item in value]
            return _convert(kind, value, param, ctx)


def convert_plainly(params: Iterable[Any]) -> None:
    """Give each plain parameter of a command (Typer's ``_TyperParameter``) a
    converter that needs no pydantic; leave the others to Typer."""
    if RuntimeParam is None:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", "absent") is not None:
            continue
        if descriptor.file_annotation is not None or getattr(descriptor.parameter_info, "parser", None) is not None:
            continue
        if _plain(descriptor.annotation) is None:
            continue
        param._runtime_param = PlainValue(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)


def conventional_help(params: Iterable[Any]) -> None:
    """Arguments shown as Click, git and sqlite-utils show them: ``GAME`` in the
    argument list (not ``GAME <str>``) and ``GAME`` / ``[GAME]`` / ``FILE...`` in the
    usage line (not ``{GAME}``).  Options already show their metavar."""
    for param in params:
        if getattr(param, "param_type_name", None) != "argument" or not hasattr(param, "display_type_rich"):
            continue
        param.display_type_rich = lambda ctx: None
        param._usage_display_name = _usage_name(param)


def _usage_name(param: Any) -> Any:
    def usage() -> str:
        name = param.metavar or param.name.upper()
        name = name if param.required else f"[{name}]"
        return name + ("..." if param.nargs != 1 else "")

    return usage
