"""``quiz optimize``: fit FSRS-6 parameters to the learner's review history (their own and
imported) and keep them when they predict the later reviews better than the defaults."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import typer

from quizzer.base import clock
from quizzer.cli.base import app
from quizzer.cli.boundary import console, say
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import JsonOption
from quizzer.base.i18n import N_, _

if TYPE_CHECKING:
    from quizzer.app.fitting import Fit


@app.command(help=N_("Fit the FSRS parameters to your review history (your own and imported) and use them "
                    "from now on, if they predict your later reviews better than the defaults."))
def optimize(
    ctx: typer.Context,
    reset: bool = typer.Option(False, "--reset", help=N_("Go back to FSRS's default parameters.")),
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.app import fitting

    opened = collection(ctx, decks_dir, db)
    if reset:
        fitted = fitting.reset(opened, settings())
        if as_json:
            from quizzer.cli.output import emit_json

            emit_json(dict(parameters=list(fitting.default_parameters()), kept=False, reset=True))
        else:
            say(_("Back to FSRS's default parameters.") if fitted
                else _("The scheduler already uses FSRS's default parameters."))
        return
    done = fitting.fit(opened, settings())
    result = done.fit
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(dict(reviews=result.reviews, default=result.default, in_use=result.in_use, fitted=result.fitted,
                       parameters=list(result.parameters), kept=result.kept))
        return
    _show(result, done.earlier_fitted_at)


def _show(result: Fit, fitted_at: datetime | None) -> None:
    """The parameter sets' scores on the later reviews, and what was kept; ``fitted_at``: when
    the parameters in use were fitted (None: the defaults are in use)."""
    from quizzer.terminal.tables import listing, number, text

    shown = listing(text(_("parameters")), number(_("log loss")), number(_("RMSE(bins)")),
                  title=_("{count} reviews").format(count=f"{result.reviews:,}"))
    shown.add_row(_("default"), f"{result.default.log_loss:.4f}", f"{result.default.rmse_bins:.4f}")
    if result.in_use is not None and fitted_at is not None:
        shown.add_row(_("in use (fitted {when})").format(when=clock.when(fitted_at)),
                      f"{result.in_use.log_loss:.4f}", f"{result.in_use.rmse_bins:.4f}")
    shown.add_row(_("fitted"), f"{result.fitted.log_loss:.4f}", f"{result.fitted.rmse_bins:.4f}")
    out = console()
    out.print(shown)
    # a line of its own, as wide as the screen (a caption would wrap to the table's width)
    out.print(_("Each set is scored as fsrs-rs scores it, on your latest reviews (the last quarter, counting only a "
                "review made on a later day than the card's one before), the new fit being made on the reviews before "
                "them: the lower, the better."), markup=False)
    if result.kept:
        out.print(_("Kept the new fit, made again on all your reviews: the scheduler uses it from now on, and every "
                    "card's memory is recomputed with it (`quiz optimize --reset` goes back)."))
    elif result.in_use is not None:
        out.print(_("Kept the parameters in use: the new fit did not predict your later reviews better than both "
                    "them and the defaults (`quiz optimize --reset` goes back to the defaults)."))
    else:
        out.print(_("Kept the default parameters: the fitted ones did not predict your later reviews better."))
    if result.kept or result.in_use is not None:
        out.print(_("FSRS parameters now in use: {parameters}").format(
            parameters=", ".join(f"{w:.4f}" for w in result.parameters)), markup=False)
