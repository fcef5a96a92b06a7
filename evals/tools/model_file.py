"""What the trainers share: write a model file, or with --check say whether it is current."""
import os


def write_or_check(path, blob, argv):
    """With --check in argv: print whether path holds exactly blob and return 0 or 1. Else write
    blob to path and return None (the trainer goes on to report its figures)."""
    name = os.path.basename(path)
    if "--check" in argv:
        with open(path, "rb") as fh:
            same = fh.read() == blob
        print("%s is %s" % (name, "up to date" if same else "OUT OF DATE: run without --check"))
        return 0 if same else 1
    with open(path, "wb") as fh:
        fh.write(blob)
    return None
