"""The ABI check (generated/tests/abi_<unit>.c, run by `make test-abi`) catches what it must.

Each case damages one declaration in a copy of cubind's generated headers, the
way a generator bug would, and shows the check program notices: a changed enum
value or struct layout changes its output, a changed wrapper signature stops the
NVIDIA-headers build at its compile-time type check.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CUDA_INCLUDE = Path("/usr/local/cuda/include")
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-deprecated-declarations",
         "-DCUBIND_NO_DEPRECATION_WARNINGS"]

pytestmark = pytest.mark.skipif(not (CUDA_INCLUDE / "cublas_v2.h").is_file(), reason="needs the CUDA headers")


def _headers(tmp_path: Path, file: str, old: str, new: str) -> Path:
    include = tmp_path / "include"
    shutil.copytree(ROOT / "generated" / "include", include)
    shutil.copytree(ROOT / "include" / "cubind", include / "cubind", dirs_exist_ok=True)
    path = include / "cubind" / file
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} must occur once in {file}"
    path.write_text(text.replace(old, new))
    return include


def _build(tmp_path: Path, include: Path, unit: str, nvidia: bool) -> subprocess.CompletedProcess:
    exe = tmp_path / f"abi-{'nvidia' if nvidia else 'cubind'}"
    extra = ["-DCUBIND_ABI_NVIDIA", f"-isystem{CUDA_INCLUDE}"] if nvidia else []
    return subprocess.run(["cc", *FLAGS, *extra, f"-I{include}", str(ROOT / "generated" / "tests" / f"abi_{unit}.c"),
                           "-o", str(exe)], capture_output=True, text=True)


def _output(tmp_path: Path, include: Path, unit: str, nvidia: bool) -> str:
    assert _build(tmp_path, include, unit, nvidia).returncode == 0
    return subprocess.run([str(tmp_path / f"abi-{'nvidia' if nvidia else 'cubind'}")], capture_output=True,
                          text=True, check=True).stdout


def test_unchanged_headers_agree(tmp_path: Path) -> None:
    include = _headers(tmp_path, "cublas_types.h", "CUBLAS_OP_T = 1", "CUBLAS_OP_T = 1")
    assert _output(tmp_path, include, "cublas", False) == _output(tmp_path, include, "cublas", True)


def test_a_wrong_enum_value_changes_the_output(tmp_path: Path) -> None:
    include = _headers(tmp_path, "cublas_types.h", "CUBLAS_OP_T = 1", "CUBLAS_OP_T = 9")
    ours, theirs = _output(tmp_path, include, "cublas", False), _output(tmp_path, include, "cublas", True)
    assert "value CUBLAS_OP_T 9" in ours and "value CUBLAS_OP_T 1" in theirs


def test_a_wrong_struct_layout_changes_the_output(tmp_path: Path) -> None:
    include = _headers(tmp_path, "cublasLt_types.h", "    size_t workspaceSize;", "    uint32_t workspaceSize;")
    ours, theirs = _output(tmp_path, include, "cublasLt", False), _output(tmp_path, include, "cublasLt", True)
    assert ours != theirs
    assert "field cublasLtMatmulHeuristicResult_t.workspaceSize 64 4" in ours


def test_a_wrong_wrapper_signature_does_not_compile(tmp_path: Path) -> None:
    include = _headers(tmp_path, "cublas.h", "cubind_cublas_sscal(cublasHandle_t handle, int n,",
                       "cubind_cublas_sscal(cublasHandle_t handle, long n,")
    result = _build(tmp_path, include, "cublas", True)
    assert result.returncode != 0
    assert "cubind_cublas_sscal does not have the type of cublasSscal_v2" in result.stderr
