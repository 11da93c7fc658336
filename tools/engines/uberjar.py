"""Merge a job server's jars into one runnable jar, as Beam's released job-server jars are built.

    python3 tools/engines/uberjar.py OUT.jar --main CLASS [--add-opens "m/p m/p"] [--class-path "a.jar b.jar"] JAR...

Why one jar: a portable Flink job stages the job server's classpath to the cluster, and Flink's client
uploads each jar to the blob server in turn, ~80 ms apiece on loopback (155 jars: 13 s before every
job starts; one jar of the same bytes: under a second). Entries are taken in the order of the jars
given (the classpath order: the first wins), `META-INF/services/*` files are concatenated (each
service's providers from every jar, as Gradle's mergeServiceFiles does), signature files and
`module-info.class` are dropped, and the manifest names the main class, the Java 17 `Add-Opens`,
`Multi-Release` and an optional `Class-Path` (jars kept beside it, e.g. Spark's own).
"""
import argparse
import sys
import zipfile

SKIP_SUFFIXES = (".SF", ".DSA", ".RSA", ".EC")


def _skip(name: str) -> bool:
    upper = name.upper()
    if upper == "META-INF/MANIFEST.MF" or upper.startswith("META-INF/INDEX.LIST"):
        return True
    if upper.startswith("META-INF/") and upper.count("/") == 1 and upper.endswith(SKIP_SUFFIXES):
        return True
    return name.endswith("module-info.class")


def _manifest(main: str, add_opens: str, class_path: str) -> bytes:
    lines = ["Manifest-Version: 1.0", f"Main-Class: {main}", "Multi-Release: true",
             "Created-By: rewrite-mining tools/engines/uberjar.py"]
    if add_opens:
        lines.append(f"Add-Opens: {add_opens}")
    if class_path:
        lines.append(f"Class-Path: {class_path}")
    out = []
    for line in lines:  # at most 72 bytes a line; continuation lines start with one space
        data = line.encode("utf-8")
        out.append(data[:70])
        data = data[70:]
        while data:
            out.append(b" " + data[:69])
            data = data[69:]
    return b"\r\n".join(out) + b"\r\n\r\n"


def merge(out_path: str, jars, main: str, add_opens: str = "", class_path: str = "", exclude=()) -> int:
    exclude = tuple(exclude)
    seen = set()
    services = {}
    with zipfile.ZipFile(out_path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        out.writestr("META-INF/MANIFEST.MF", _manifest(main, add_opens, class_path))
        seen.add("META-INF/MANIFEST.MF")
        for jar in jars:
            with zipfile.ZipFile(jar) as z:
                for info in z.infolist():
                    name = info.filename
                    if info.is_dir() or _skip(name) or (exclude and name.startswith(exclude)):
                        continue
                    if name.startswith("META-INF/services/") and name.count("/") == 2:
                        text = z.read(info).decode("utf-8", "replace")
                        lines = services.setdefault(name, [])
                        for line in text.splitlines():
                            entry = line.split("#", 1)[0].strip()
                            if entry and entry not in lines:
                                lines.append(entry)
                        continue
                    if name in seen:
                        continue
                    seen.add(name)
                    out.writestr(info, z.read(info), compress_type=zipfile.ZIP_DEFLATED, compresslevel=1)
        for name, lines in sorted(services.items()):
            out.writestr(name, "\n".join(lines) + "\n")
    return len(seen) + len(services)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("jars", nargs="+")
    parser.add_argument("--main", required=True)
    parser.add_argument("--add-opens", default="")
    parser.add_argument("--class-path", default="")
    parser.add_argument("--exclude", action="append", default=[],
                        help="leave out entries whose path starts with this (repeatable)")
    args = parser.parse_args(argv)
    n = merge(args.out, args.jars, args.main, args.add_opens, args.class_path, args.exclude)
    print(f"{args.out}: {n} entries from {len(args.jars)} jars", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
