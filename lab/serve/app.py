"""The web app's routes (Starlette): the 試験場 play page, the experiments page, the answers
pages, and the guards every request passes.

Owns the URL map, the form ⇄ call translation and the page each answer is rendered into (Jinja2
templates beside this module, escaped by default). A ``LabError`` raised by any layer is shown as
its one line in the page that caused it (HTTP 400), the page keeps working; a request body
larger than the upload limit is refused before it is read; a request whose Host or Origin is not
this server is refused (a web page elsewhere cannot drive a lab on 127.0.0.1). Every number,
table and file comes from the layer that owns it (``lab.serve.play``, ``jobs``, ``answers`` and,
through them, the commands' own functions); nothing here computes or simulates.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from lab.design import balance_defaults
from lab.errors import LabError
from lab.games import DEFAULT, GAMES, get
from lab.serve import answers
from lab.serve.jobs import Jobs
from lab.serve.paths import DECKS, MAX_UPLOAD, REPLAYS, SCENARIOS, Roots, decode, safe_name
from lab.serve.play import Matches, Setup, presets, rule_fields

HERE = Path(__file__).parent
MAX_BODY = MAX_UPLOAD + 64 * 1024  # one upload and its form fields
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


class Lab:
    """What one server holds: its roots, the matches being played and the jobs it started."""

    def __init__(self, roots: Roots):
        self.roots = roots
        self.matches = Matches(roots.results / REPLAYS)
        self.jobs = Jobs(roots.results)
        self.warm = threading.Event()


# ------------------------------------------------------------------------------ guards


class Guard:
    """ASGI middleware: refuse a body over MAX_BODY (413, before reading it), a Host this
    server is not (421), and a POST from another origin (403)."""

    def __init__(self, app, hosts: tuple[str, ...]):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts and _hostname(host) not in self.hosts:
            return await _plain(
                send,
                421,
                f"this lab answers to {', '.join(self.hosts)}, not {host or 'no Host header'}",
            )
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin") or headers.get("referer")
            if origin and urlsplit(origin).netloc not in (host, ""):
                return await _plain(send, 403, "a request from another site was refused")
        length = headers.get("content-length")
        if length and length.isdigit() and int(length) > MAX_BODY:
            return await _plain(
                send,
                413,
                f"the request is {int(length):,} bytes; uploads are at most {MAX_UPLOAD:,} bytes",
            )
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > MAX_BODY:
                    raise LabError(
                        f"the request is over {MAX_UPLOAD:,} bytes; uploads are at "
                        f"most {MAX_UPLOAD:,} bytes"
                    )
            return message

        started = time.perf_counter()

        async def timed(message):
            # Server-Timing: the time this server spent on the request (benchmarks/serve.py)
            if message["type"] == "http.response.start":
                took = (time.perf_counter() - started) * 1000
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"server-timing", f"app;dur={took:.2f}".encode()),
                    ],
                }
            await send(message)

        return await self.app(scope, counted, timed)


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[: host.index("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _plain(send, status: int, text: str):
    body = f"error: {text}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


# ------------------------------------------------------------------------------ the app


def create_app(
    results: str | Path = "results",
    configs=("configs",),
    *,
    hosts: tuple[str, ...] = LOCAL_HOSTS,
    warm: bool = True,
) -> Starlette:
    """The app over ``results`` (read and written) and ``configs`` (read)."""
    roots = Roots.of(results, configs)
    roots.results.mkdir(parents=True, exist_ok=True)
    lab = Lab(roots)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    # a game's own parts of the play page (its form fields, board, result) are its entry's
    # templates, included as GAME/form.html, GAME/board.html, GAME/result.html
    templates.env.loader = ChoiceLoader(
        [
            templates.env.loader,
            PrefixLoader(
                {name: FileSystemLoader(str(GAMES[name].PAGE_TEMPLATES)) for name in GAMES}
            ),
        ]
    )
    templates.env.globals.update(
        games=[(name, GAMES.display(name)) for name in GAMES],
        shown_game={name: GAMES.display(name) for name in GAMES},
        max_upload=MAX_UPLOAD,
    )

    def page(request: Request, template: str, status: int = 200, **context) -> HTMLResponse:
        context.setdefault("error", None)
        return templates.TemplateResponse(
            request, template, {"lab": lab, **context}, status_code=status
        )

    def fragment(request: Request) -> bool:
        return request.headers.get("x-fragment") == "1"

    async def form_of(request: Request) -> dict:
        form = await request.form(max_files=2, max_fields=200, max_part_size=MAX_UPLOAD)
        return {k: v for k, v in form.multi_items()}

    # -------------------------------------------------------------------- home
    def home(request: Request):
        return page(
            request,
            "home.html",
            jobs=[lab.jobs.progress(j.id) for j in lab.jobs.all()],
            experiments=answers.experiments(roots.results)[:8],
        )

    # -------------------------------------------------------------------- 試験場
    def play_context(form: dict, match=None, error: str | None = None) -> dict:
        game = form.get("game") if form.get("game") in GAMES else DEFAULT
        names, default = presets(game)
        preset = form.get("preset") if form.get("preset") in names else default
        try:
            from lab.serve.play import overrides_from_form

            toggles = rule_fields(game, preset, overrides_from_form(game, preset, form))
        except LabError:
            toggles = rule_fields(game, preset)
            for t in toggles:  # keep what was typed, so the error can be fixed in place
                t["value"] = form.get(f"rule_{t['key']}", t["value"])
        armies = get(game).armies()
        decks_dir = roots.results / DECKS
        uploaded = sorted(p.name for p in decks_dir.glob("*.toml")) if decks_dir.is_dir() else []
        view = match.view() if match is not None else None
        return {
            "form": form,
            "game": game,
            "preset": preset,
            "presets": names,
            "toggles": toggles,
            "armies": armies,
            "decks": uploaded,
            "match": match,
            "view": view,
            "error": error,
        }

    def play_page(request: Request):
        form = dict(request.query_params)
        match = None
        if "m" in form:
            try:
                match, _ = lab.matches.get(form["m"])
            except KeyError:
                return page(
                    request,
                    "play.html",
                    status=404,
                    **play_context(
                        {}, error="that match is no longer held by this server; start another"
                    ),
                )
            form = {**match.setup.form, **{k: v for k, v in form.items() if k != "m"}}
        return page(request, "play.html", **play_context(form, match))

    async def play_new(request: Request):
        form = await form_of(request)
        form = {k: str(v) for k, v in form.items() if not isinstance(v, UploadFile)}
        try:
            setup = Setup(form, roots.results / DECKS)
            match = lab.matches.new(setup)
        except LabError as e:
            return page(request, "play.html", status=400, **play_context(form, error=one_line(e)))
        return RedirectResponse(f"/play?m={match.id}", status_code=303)

    async def play_act(request: Request):
        match_id = request.path_params["match"]
        form = await form_of(request)
        try:
            match, lock = lab.matches.get(match_id)
        except KeyError:
            return _error(
                request, "that match is no longer held by this server; start another", 404
            )
        error = None
        with lock:
            try:
                step = int(form.get("step", -1))
                if step != match.steps:
                    raise LabError(
                        "that decision was already taken (the page was behind); "
                        "here is the game as it stands"
                    )
                match.act(int(form.get("i", -1)))
            except (LabError, ValueError) as e:
                error = one_line(e)
        if fragment(request):  # the board only: the form beside it is unchanged
            return page(
                request,
                "match.html",
                status=400 if error else 200,
                match=match,
                view=match.view(),
                error=error,
            )
        if error:
            return page(
                request, "play.html", status=400, **play_context(match.setup.form, match, error)
            )
        return RedirectResponse(f"/play?m={match.id}", status_code=303)

    def play_json(request: Request):
        try:
            match, lock = lab.matches.get(request.path_params["match"])
        except KeyError:
            return JSONResponse({"error": "no such match"}, status_code=404)
        with lock:
            return JSONResponse(match.view())

    def play_replay(request: Request):
        try:
            match, lock = lab.matches.get(request.path_params["match"])
            with lock:
                name, text = match.replay_text()
        except KeyError:
            return _error(request, "no such match", 404)
        except LabError as e:
            return _error(request, one_line(e), 409)
        kind = "application/json" if name.endswith(".json") else "text/plain"
        return Response(
            text,
            media_type=f"{kind}; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    def play_scenario(request: Request):
        try:
            match, lock = lab.matches.get(request.path_params["match"])
            with lock:
                name, text, _ = match.scenario_text(roots.results / SCENARIOS)
        except KeyError:
            return _error(request, "no such match", 404)
        except LabError as e:
            return _error(request, one_line(e), 409)
        return Response(
            text,
            media_type="application/toml; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def play_deck(request: Request):
        """Upload a deck file for play: saved to RESULTS/decks/ once it loads as a deck."""
        form = await form_of(request)
        upload = form.get("deck")
        back = {k: str(v) for k, v in form.items() if not isinstance(v, UploadFile)}
        try:
            if not isinstance(upload, UploadFile) or not upload.filename:
                raise LabError("choose a deck file (.toml) to upload")
            name = safe_name(upload.filename)
            text = decode(await upload.read(), name)
            folder = roots.results / DECKS
            folder.mkdir(parents=True, exist_ok=True)
            chosen = get(back.get("game") or DEFAULT).page_upload(text, name)  # one line if bad
            (folder / name).write_text(text, encoding="utf-8")
        except LabError as e:
            return page(request, "play.html", status=400, **play_context(back, error=one_line(e)))
        back.update(chosen)
        return RedirectResponse("/play?" + urlencode(back), status_code=303)

    # -------------------------------------------------------------------- experiments
    def experiments_context(**extra) -> dict:
        return {
            "configs": [name for name, _ in roots.config_files()],
            "jobs": [lab.jobs.progress(j.id) for j in lab.jobs.all()],
            **extra,
        }

    def experiments_page(request: Request):
        ref = request.query_params.get("config", "")
        text, error = "", None
        if ref:
            try:
                path = roots.config(ref)
                text = path.read_text(encoding="utf-8")
            except (LabError, OSError) as e:
                error = one_line(e)
        return page(
            request,
            "experiments.html",
            status=400 if error else 200,
            **experiments_context(ref=ref, text=text, error=error, checked=None),
        )

    async def experiments_check(request: Request):
        """Check (and with save, keep) a config typed or uploaded in the page: the CLI's
        schema and its one-line errors."""
        form = await form_of(request)
        upload = form.get("file")
        name = str(form.get("name") or "").strip()
        text = str(form.get("text") or "")
        checked = None
        try:
            if isinstance(upload, UploadFile) and upload.filename:
                name = upload.filename  # an uploaded file keeps its own name
                text = decode(await upload.read(), upload.filename)
            name = safe_name(name or "my_experiment.toml")
            checked = check_config(text, name)
            if form.get("save"):
                roots.uploads.mkdir(parents=True, exist_ok=True)
                (roots.uploads / name).write_text(text, encoding="utf-8")
                checked["saved"] = f"uploads/{name}"
        except LabError as e:
            return page(
                request,
                "experiments.html",
                status=400,
                **experiments_context(
                    ref="", text=text, name=name, error=one_line(e), checked=None
                ),
            )
        return page(
            request,
            "experiments.html",
            **experiments_context(
                ref=checked.get("saved", ""), text=text, name=name, checked=checked
            ),
        )

    def check_config(text: str, name: str) -> dict:
        """The experiment of ``text`` as the CLI would resolve it from uploads/NAME (one
        LabError naming the file, key and allowed values otherwise)."""
        from lab.errors import parse_toml
        from lab.sim import config as sim_config

        path = roots.uploads / name
        source = f"uploads/{name}"
        data = parse_toml(text, source)
        roots.check_references(data, path.parent, source)
        with as_named(path, source):
            exp = sim_config.from_dict(data, str(path))
        return {
            "name": exp.name,
            "game": exp.game,
            "games": exp.total_games,
            "variants": len(exp.variants),
            "tiers": len(exp.tiers),
            "line": get(exp.game).describe(exp),
        }

    async def experiments_start(request: Request):
        form = await form_of(request)
        kind = str(form.get("kind") or "run")
        ref = str(form.get("config") or "")
        try:
            job = start_job(kind, ref, form)
        except LabError as e:
            return page(
                request,
                "experiments.html",
                status=400,
                **experiments_context(ref=ref, text=_text_of(ref), error=one_line(e), checked=None),
            )
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    def start_job(kind: str, ref: str, form: dict):
        from lab.errors import read_toml
        from lab.sim import config as sim_config

        path = roots.config(ref)
        data = read_toml(path, "an experiment .toml file")
        roots.check_references(data, path.parent, ref)
        games = _int(form.get("games"), "games")
        with as_named(path, ref):
            exp = sim_config.from_dict(data, str(path), games=games)
        options: dict = {"games": games}
        if kind == "run":
            from lab.sim.runner import default_out

            default = default_out(exp, games_option=games is not None).name
            out = roots.result(str(form.get("out") or default))
            options.update(resume=bool(form.get("resume")), fresh=bool(form.get("fresh")))
        elif kind == "value":
            from lab.design.value import default_out

            out = roots.result(
                str(form.get("out") or "")
                or default_out(exp, games is not None).relative_to("results").as_posix()
            )
            options.update(
                cards=str(form.get("cards") or ""),
                tier=str(form.get("tier") or ""),
                resume=bool(form.get("resume")),
            )
        elif kind == "balance":
            from lab.design.balance import default_out

            out = roots.result(
                str(form.get("out") or "") or default_out(exp).relative_to("results").as_posix()
            )
            options.update(
                band=_float(form.get("band"), "band", balance_defaults.BAND),
                max_edits=_int(form.get("max_edits"), "max_edits") or balance_defaults.MAX_EDITS,
                minutes=_float(form.get("minutes"), "minutes", None),
                budget_games=_int(form.get("budget_games"), "budget_games"),
                confirm_games=_int(form.get("confirm_games"), "confirm_games")
                or balance_defaults.CONFIRM_GAMES,
                strong_games=_int(form.get("strong_games"), "strong_games")
                or balance_defaults.STRONG_GAMES,
                cards=str(form.get("cards") or ""),
                deck_lists=bool(form.get("deck_lists")),
                abilities=not form.get("no_abilities"),
                centre=not form.get("no_centre"),
                tiers=str(form.get("tiers") or ""),
                resume=bool(form.get("resume")),
            )
        else:
            raise LabError(f"kind \"{kind}\" is not allowed; allowed values: run, value, balance")
        return lab.jobs.start(kind, path, ref, out, **options)

    def job_page(request: Request):
        try:
            job = lab.jobs.progress(request.path_params["job"])
        except LabError as e:
            return _error(request, one_line(e), 404)
        return page(request, "job.html", job=job)

    def job_json(request: Request):
        try:
            return JSONResponse(lab.jobs.progress(request.path_params["job"]))
        except LabError as e:
            return JSONResponse({"error": one_line(e)}, status_code=404)

    def job_stop(request: Request):
        try:
            job = lab.jobs.stop(request.path_params["job"])
        except LabError as e:
            return _error(request, one_line(e), 404)
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    def job_resume(request: Request):
        try:
            old = lab.jobs.get(request.path_params["job"])
            if old.active:
                raise LabError(f"job {old.id} is still running; stop it first")
            options = {**old.options, "resume": True, "fresh": False}
            job = lab.jobs.start(old.kind, roots.config(old.config), old.config, old.out, **options)
        except LabError as e:
            return _error(request, one_line(e), 400)
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    # -------------------------------------------------------------------- answers
    def answers_page(request: Request):
        found = answers.experiments(roots.results)
        return page(
            request,
            "answers.html",
            experiments=found,
            variants={e["name"]: answers.variants_of(roots.result(e["name"])) for e in found},
        )

    def folder_of(request: Request) -> Path:
        folder = roots.result(request.path_params["name"])
        if not (folder / "manifest.json").is_file():
            raise LabError(f"\"{request.path_params['name']}\" is not a results folder here")
        return folder

    def answer_page(request: Request):
        try:
            folder = folder_of(request)
            info = answers.detail(folder)
        except LabError as e:
            return _error(request, one_line(e), 404)
        return page(
            request,
            "answer.html",
            info=info,
            configs=[n for n, _ in roots.config_files()],
            value=answers.value_tables(answers.value_folder(folder)) if info["value"] else [],
            balance=answers.balance_blocks(folder) if info["balance"] else None,
            balance_defaults=balance_defaults,
        )

    def report_get(request: Request):
        try:
            folder = folder_of(request)
        except LabError as e:
            return _error(request, one_line(e), 404)
        page_path = folder / "report.html"
        if not page_path.is_file():
            return _error(request, "no report yet: build it from the experiment's page", 404)
        return FileResponse(page_path, media_type="text/html; charset=utf-8")

    def report_build(request: Request):
        try:
            folder = folder_of(request)
            answers.build_report(folder)
        except LabError as e:
            return _error(request, one_line(e), 400)
        return RedirectResponse(f"/answers/{folder.name}/report", status_code=303)

    def compare_page(request: Request):
        q = request.query_params
        found = answers.experiments(roots.results)
        variants = {e["name"]: answers.variants_of(roots.result(e["name"])) for e in found}
        result, error = None, None
        if q.get("a") and q.get("b"):
            try:
                a, b = roots.result(q["a"]), roots.result(q["b"])
                result = answers.compare(
                    a,
                    q.get("va") or (variants.get(q["a"]) or [""])[0],
                    b,
                    q.get("vb") or (variants.get(q["b"]) or [""])[0],
                )
            except LabError as e:
                error = one_line(e)
        return page(
            request,
            "compare.html",
            status=400 if error else 200,
            experiments=found,
            variants=variants,
            q=dict(q),
            result=result,
            error=error,
        )

    def _error(request: Request, line: str, status: int):
        if fragment(request) or "json" in request.headers.get("accept", ""):
            return JSONResponse({"error": line}, status_code=status)
        return page(request, "error.html", status=status, error=line)

    async def lab_error(request: Request, exc: LabError):
        return _error(request, one_line(exc), 400)

    def _text_of(ref: str) -> str:
        try:
            return roots.config(ref).read_text(encoding="utf-8")
        except (LabError, OSError):
            return ""

    # -------------------------------------------------------------------- start and stop
    def warm_up() -> None:
        """Load the compiled engine and bots (one short match each game), so the first click
        answers as fast as the others."""
        try:
            from lab.serve.play import Setup as _Setup

            for name in GAMES:
                m = lab.matches.new(_Setup({"game": name, "seed": "1"}, roots.results / DECKS))
                m.replay_dir = roots.results / ".serve" / "warm-up"  # not a match of the user's
                while not m.over:
                    m.act(0)
                lab.matches._items.pop(m.id, None)
            for name in templates.env.list_templates():  # Jinja compiles each on first use
                templates.get_template(name)
            for name in GAMES:  # their armies' files, read once
                get(name).armies()
            # The compiled engine leaves a large, long-lived heap of objects behind; a full
            # collection walking it took 0.1–0.4 s (measured in the middle of a click). Frozen,
            # it is never walked again; what a match allocates later is collected as usual.
            gc.collect()
            gc.freeze()
        finally:
            lab.warm.set()

    def startup():
        if warm:
            threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
        else:
            lab.warm.set()

    def shutdown():
        lab.jobs.stop_all()

    routes = [
        Route("/", home),
        Route("/play", play_page),
        Route("/play", play_new, methods=["POST"]),
        Route("/play/deck", play_deck, methods=["POST"]),
        Route("/play/{match}.json", play_json),
        Route("/play/{match}/act", play_act, methods=["POST"]),
        Route("/play/{match}/replay", play_replay),
        Route("/play/{match}/scenario", play_scenario),
        Route("/experiments", experiments_page),
        Route("/experiments/check", experiments_check, methods=["POST"]),
        Route("/experiments/start", experiments_start, methods=["POST"]),
        Route("/jobs/{job}.json", job_json),
        Route("/jobs/{job}", job_page),
        Route("/jobs/{job}/stop", job_stop, methods=["POST"]),
        Route("/jobs/{job}/resume", job_resume, methods=["POST"]),
        Route("/answers", answers_page),
        Route("/answers/{name}", answer_page),
        Route("/answers/{name}/report", report_get),
        Route("/answers/{name}/report", report_build, methods=["POST"]),
        Route("/compare", compare_page),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        startup()
        yield
        shutdown()

    app = Starlette(routes=routes, exception_handlers={LabError: lab_error}, lifespan=lifespan)
    app.state.lab = lab
    guarded = Guard(app, tuple(hosts))
    guarded.state = app.state  # the tests and benchmarks reach the Lab through it
    return guarded


@contextlib.contextmanager
def as_named(path: Path, name: str):
    """A LabError about ``path`` names it as the page does (configs/…, uploads/…), as the CLI
    names a file by the path typed, not by where this server's folders lie."""
    try:
        yield
    except LabError as e:
        raise LabError(str(e).replace(str(path), name)) from None


def _int(value, key: str) -> int | None:
    text = str(value or "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise LabError(f"{key} = \"{text}\" is not allowed; allowed values: whole numbers ≥ 1")
    return int(text)


def _float(value, key: str, default):
    text = str(value or "").strip()
    if not text:
        return default
    try:
        x = float(text)
    except ValueError:
        raise LabError(f"{key} = \"{text}\" is not a number") from None
    if x <= 0:
        raise LabError(f"{key} = {text} is not allowed; give a number > 0")
    return x


def wait_warm(app, timeout: float = 120.0) -> bool:
    """True once the app's warm-up finished (tests and benchmarks wait for it)."""
    lab = app.state.lab
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if lab.warm.wait(0.2):
            return True
    return False


__all__ = ["create_app", "wait_warm", "LOCAL_HOSTS"]
