import sys

from npu_emu.conformance.cli import main

# Guarded: worker processes are spawned and re-import the main module.
if __name__ == "__main__":
    sys.exit(main())
