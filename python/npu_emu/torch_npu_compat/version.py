"""torch_npu.version: the compatible module's version (torch_npu's release it
follows, tagged +npu_emu) and the git revision (unknown: "")."""

from npu_emu.torch_npu_compat import __version__  # noqa: F401

git_version = ""
