"""NPU=acl, proven without hardware: the dispatch layer loads a stand-in
vendor library set with CANN's file names (libascendcl.so, libnnopbase.so,
libopapi.so) that logs every call and forwards it to the emulator."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_python

STANDIN = Path(os.environ.get("NPU_EMU_BUILD_DIR", REPO / "build")) / "vendor_standin"


@pytest.fixture
def acl_env(tmp_path):
    if not (STANDIN / "lib64" / "libascendcl.so").exists():
        pytest.fail(f"the stand-in vendor libraries were not built at {STANDIN}")
    log = tmp_path / "acl_calls.log"
    return log, {"NPU": "acl", "ASCEND_HOME_PATH": str(STANDIN), "NPU_STANDIN_LOG": str(log)}


def test_add_goes_through_the_vendor_libraries(acl_env):
    log, env = acl_env
    code = ("import torch, torch_npu\n"
            "a = torch.arange(4.).npu(); b = torch.ones(4).npu()\n"
            "torch.npu.synchronize()\n"
            "with open(__import__('os').environ['NPU_STANDIN_LOG'], 'a') as f: f.write('--- add\\n')\n"
            "c = a + b\n"
            "with open(__import__('os').environ['NPU_STANDIN_LOG'], 'a') as f: f.write('--- end\\n')\n"
            "print(c.cpu().tolist(), hex(torch.npu.current_stream().npu_stream), npu_emu_mode())\n")
    code = code.replace("npu_emu_mode()", "__import__('npu_emu')._C._driver_mode()")
    r = run_python(code, env)
    assert r.returncode == 0, r.stderr
    values, stream, mode = r.stdout.rsplit(" ", 2)
    assert values == "[1.0, 2.0, 3.0, 4.0]" and mode.strip() == "acl"
    lines = log.read_text().splitlines()
    add = lines[lines.index("--- add") + 1:lines.index("--- end")]
    names = [line.split()[0] for line in add]
    # Three tensor descriptions (self, other, out) and alpha, then the op pair on the current stream.
    assert names.count("aclCreateTensor") == 3 and "aclCreateScalar" in names
    assert names.index("aclnnAddGetWorkspaceSize") > max(i for i, n in enumerate(names) if n == "aclCreateTensor")
    assert names[names.index("aclnnAddGetWorkspaceSize") + 1] == "aclnnAdd"
    assert f"aclnnAdd stream={stream.strip()}" in add
    # The emulator-only knobs are absent from real CANN's libraries.
    assert not any(line.startswith("aclemu") for line in lines)


def test_emulator_only_knob_is_a_clear_error_on_acl(acl_env):
    _, env = acl_env
    r = run_python("import torch, npu_emu\nnpu_emu._C._set_kernel_delay_us(5)", env)
    assert r.returncode != 0 and "no symbol 'aclemuSetKernelDelayUs'" in r.stderr


def _generate_forwarders(out_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    # The hand-written headers and the aclnn families the build generates from the op table.
    generated = REPO / "build" / "generated" / "include" / "acl"
    headers = sorted(str(p) for p in [*(REPO / "include" / "acl").glob("*.h"), *generated.glob("aclnn_*.h")]
                     if p.name != "aclnn_ops.h")
    return subprocess.run([sys.executable, str(REPO / "tests" / "vendor_standin" / "gen_forwarders.py"),
                           "--output-dir", str(out_dir), *extra, *headers], capture_output=True, text=True)


def test_forwarder_generator_omits_exactly_the_named_op_pairs(tmp_path):
    full, reduced = tmp_path / "full", tmp_path / "reduced"
    assert _generate_forwarders(full).returncode == 0
    r = _generate_forwarders(reduced, "--omit", "aclnnMaximum", "--omit", "aclnnAtan2")
    assert r.returncode == 0, r.stderr

    def defined(directory: Path) -> set[str]:
        text = (directory / "forward_opapi.cpp").read_text()
        return {line.split("(")[0].split()[-1] for line in text.splitlines() if line.startswith("ACL_FUNC_VISIBILITY")}

    assert defined(full) - defined(reduced) == {"aclnnMaximum", "aclnnMaximumGetWorkspaceSize", "aclnnAtan2",
                                                "aclnnAtan2GetWorkspaceSize"}
    assert defined(reduced) < defined(full)
    for lib in ("ascendcl", "nnopbase"):
        assert (full / f"forward_{lib}.cpp").read_text() == (reduced / f"forward_{lib}.cpp").read_text()


def test_forwarder_generator_refuses_to_omit_an_unknown_op(tmp_path):
    r = _generate_forwarders(tmp_path, "--omit", "aclnnNoSuchOp")
    assert r.returncode == 1
    assert "--omit names no aclnn op declared in the headers: ['aclnnNoSuchOp']" in r.stderr
