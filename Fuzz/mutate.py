#!/usr/bin/env python3
"""Mutation fuzzer of real model files for the `foldkit` command (Docs/Security.md, "Mutation fuzzing
of real files").

Where the libFuzzer targets (Fuzz/Targets) feed one reader small inputs in-process, this runs the real
`foldkit` binary, as a user would, on mutants of real files: Darknet .cfg and .weights, Keras .h5 and
.keras, .npy inputs, JPEG and PNG images. The seeds and the commands run on them are listed in
Fuzz/mutation-seeds.json; real models are read from the shared folder beside the repository
(../shared/real-models, or $FOLDKIT_SHARED/real-models) and never copied.

    python3 Fuzz/mutate.py --foldkit .build/release/foldkit [--seed 1] [--runs 3000]
    python3 Fuzz/mutate.py --seed 1 --replay 1234 --keep /some/folder   # one run again, kept
    python3 Fuzz/mutate.py --heap-ids shared:keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5

Each run picks a file kind, a seed file of that kind and one of its commands, applies one to three
seeded mutations (bit flips; bytes set to 0x00/0xFF/0x7F/0x80; 2-, 4- and 8-byte little-endian
integers such as 0, 1, -1, 2^31-1, 2^32, 2^63-1; truncation; a chunk duplicated or deleted; and for
.cfg text, numbers replaced by huge, negative or zero values, lines and sections duplicated, deleted or
swapped) and runs the command on the mutant. Everything a run does follows from (seed, run index), so
`--replay` rebuilds any run exactly (with the same seed files present).

A run is a finding when the process is killed by a signal or exits with a code its command does not
document (convert and fixtures: 0 or 1; verify: 0, 1, or 2 for "over tolerance"), runs longer than
--max-seconds (20 s; it is killed after --kill-seconds, 30 s), has a peak resident set over
--max-rss (1 GiB; the process is killed past --kill-rss, 4 GiB, to protect the machine), leaves a
temporary folder beside --out or in its TMPDIR, leaves --out behind after a failure, or writes a
manifest whose checksums do not match its blobs. For Keras seeds (.h5, .keras) a mutant that converts
(exit 0) must give exactly the original's blobs (every tensor file and its manifest entry; the
manifest's source paths and checksums are ignored). The one exception is a mutation that only changes
bytes that are values of the .h5 file: the stored values of a dataset (weights) or the text of a string
attribute (model_config, layer or weight names). The file then describes another model, and different
blobs are what a correct reader gives; such runs are counted apart ("content changed"). The value
regions are found with libhdf5 through ctypes on the unmutated seed; without libhdf5 every difference is
a finding. Findings are copied (mutant, command, stdout, stderr) into --findings, outside the repository.

Python 3 standard library only.
"""

import argparse
import ctypes
import ctypes.util
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["cfg", "weights", "h5", "keras", "npy", "jpeg", "png"]
# How often each kind is picked: the Keras readers (libhdf5, the zip reader, the heap check) get the most.
KIND_WEIGHTS = {"cfg": 0.15, "weights": 0.13, "h5": 0.27, "keras": 0.17, "npy": 0.10, "jpeg": 0.09, "png": 0.09}
# Exit codes each command documents (Docs/CLI.md): anything else, or a signal, is a finding.
DOCUMENTED_EXITS = {"convert": {0, 1}, "fixtures": {0, 1}, "verify": {0, 1, 2}, "export": {0, 1}}
# What an export that exits 0 must have written, by --format.
EXPORT_FILES = {"onnx": ["model.onnx", "test_data_set_0/input_0.pb"], "tflite": ["model.tflite", "test_data_set_0/input_0.pb"],
                "ncnn": ["model.param", "model.bin", "metadata.json", "test_data_set_0/input_0.pb"]}
GIB = 1 << 30

# Interesting integers, written little-endian over 2, 4 or 8 bytes (wrapped to the width).
INTERESTING = [0, 1, -1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 2**31 - 1, 2**31,
               2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 4096, 65535 * 65535]
CFG_NUMBERS = ["0", "-1", "1", "2", "-2147483648", "2147483647", "2147483648", "4294967296",
               "9223372036854775807", "99999999999999999999", "100000", "65536", "1e30", "-1e30", "0.0",
               "nan", "inf", "-0", "3.5", ""]


def shared_root():
    root = os.environ.get("FOLDKIT_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
    return os.path.join(root, "real-models")


def resolve(path):
    """A seed-list path: 'shared:x/y' in the shared real-models folder, anything else in the repository."""
    if path.startswith("shared:"):
        return os.path.join(shared_root(), path[len("shared:"):])
    return os.path.join(REPO, path)


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------------------
# Value regions of an HDF5 file (libhdf5 through ctypes)


class HDF5Values:
    """Byte ranges of an HDF5 file that hold values, not structure: dataset storage (contiguous or each
    chunk; compact datasets by their bytes) and the bytes of every string attribute. Read with the
    system libhdf5 on unmutated seeds only."""

    def __init__(self):
        self.lib = None
        names = [os.environ.get("FUZZ_LIBHDF5"), ctypes.util.find_library("hdf5_serial"),
                 ctypes.util.find_library("hdf5"), "libhdf5_serial.so.103", "libhdf5.so", "libhdf5.dylib"]
        for name in [n for n in names if n]:
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if self.lib is None:
            return
        lib = self.lib
        hid, herr = ctypes.c_int64, ctypes.c_int
        for name, restype, argtypes in [
            ("H5open", herr, []),
            ("H5Eset_auto2", herr, [hid, ctypes.c_void_p, ctypes.c_void_p]),
            ("H5Fopen", hid, [ctypes.c_char_p, ctypes.c_uint, hid]),
            ("H5Fclose", herr, [hid]),
            ("H5Oopen", hid, [hid, ctypes.c_char_p, hid]),
            ("H5Oclose", herr, [hid]),
            ("H5Dopen2", hid, [hid, ctypes.c_char_p, hid]),
            ("H5Dclose", herr, [hid]),
            ("H5Dget_offset", ctypes.c_uint64, [hid]),
            ("H5Dget_storage_size", ctypes.c_uint64, [hid]),
            ("H5Dget_num_chunks", herr, [hid, hid, ctypes.POINTER(ctypes.c_uint64)]),
            ("H5Dget_chunk_info", herr, [hid, hid, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64),
                                         ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint64),
                                         ctypes.POINTER(ctypes.c_uint64)]),
            ("H5Dget_type", hid, [hid]),
            ("H5Dread", herr, [hid, hid, hid, hid, hid, ctypes.c_void_p]),
            ("H5Aopen", hid, [hid, ctypes.c_char_p, hid]),
            ("H5Aclose", herr, [hid]),
            ("H5Aget_type", hid, [hid]),
            ("H5Aget_space", hid, [hid]),
            ("H5Aread", herr, [hid, hid, ctypes.c_void_p]),
            ("H5Sget_simple_extent_npoints", ctypes.c_int64, [hid]),
            ("H5Sclose", herr, [hid]),
            ("H5Tget_class", ctypes.c_int, [hid]),
            ("H5Tget_size", ctypes.c_size_t, [hid]),
            ("H5Tis_variable_str", ctypes.c_int, [hid]),
            ("H5Tcopy", hid, [hid]),
            ("H5Tset_size", herr, [hid, ctypes.c_size_t]),
            ("H5Tclose", herr, [hid]),
        ]:
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        lib.H5open()
        lib.H5Eset_auto2(0, None, None)  # H5E_DEFAULT: no error stack printed
        self.c_s1 = ctypes.c_int64.in_dll(lib, "H5T_C_S1_g").value
        self.visit_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p)
        lib.H5Lvisit.restype = herr
        lib.H5Lvisit.argtypes = [hid, ctypes.c_int, ctypes.c_int, self.visit_type, ctypes.c_void_p]
        lib.H5Aiterate2.restype = herr
        lib.H5Aiterate2.argtypes = [hid, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, self.visit_type, ctypes.c_void_p]

    @property
    def available(self):
        return self.lib is not None

    def regions(self, path):
        """Sorted, merged [start, end) ranges of value bytes, or None when libhdf5 cannot read the file."""
        lib = self.lib
        data = open(path, "rb").read()
        fid = lib.H5Fopen(path.encode(), 0, 0)  # H5F_ACC_RDONLY, H5P_DEFAULT
        if fid < 0:
            return None
        names = []

        def visit(_group, name, _info, _data):
            names.append(name)
            return 0

        callback = self.visit_type(visit)
        lib.H5Lvisit(fid, 0, 0, callback, None)  # H5_INDEX_NAME, H5_ITER_INC
        ranges, patterns = [], []
        for name in [b"/"] + names:
            dataset = lib.H5Dopen2(fid, name, 0) if name != b"/" else -1
            if dataset >= 0:
                ranges.extend(self._dataset_ranges(dataset, patterns))
                lib.H5Dclose(dataset)
            obj = lib.H5Oopen(fid, name, 0)
            if obj >= 0:
                patterns.extend(self._attribute_values(obj))
                lib.H5Oclose(obj)
        lib.H5Fclose(fid)
        # Variable-length strings are objects of global heap collections: only matches inside one count (the
        # same names appear as link names, which are structure).
        heaps = [(m.start(), m.start() + int.from_bytes(data[m.start() + 8:m.start() + 16], "little"))
                 for m in re.finditer(rb"GCOL", data)]
        for where, pattern in patterns:
            if len(pattern) < 4:  # too short to place by searching; a change there counts as structure
                continue
            at = data.find(pattern)
            while at >= 0:
                if where == "anywhere" or inside(heaps, at, at + len(pattern)):
                    ranges.append((at, at + len(pattern)))
                at = data.find(pattern, at + 1)
        return merge(ranges)

    def _dataset_ranges(self, dataset, patterns):
        lib = self.lib
        offset = lib.H5Dget_offset(dataset)
        size = lib.H5Dget_storage_size(dataset)
        if offset != 2**64 - 1:
            return [(offset, offset + size)] if size else []
        count = ctypes.c_uint64(0)
        if lib.H5Dget_num_chunks(dataset, 0, ctypes.byref(count)) >= 0 and count.value > 0:
            result = []
            coordinates = (ctypes.c_uint64 * 32)()
            for i in range(count.value):
                mask, address, length = ctypes.c_uint(0), ctypes.c_uint64(0), ctypes.c_uint64(0)
                if lib.H5Dget_chunk_info(dataset, 0, i, coordinates, ctypes.byref(mask), ctypes.byref(address),
                                         ctypes.byref(length)) >= 0 and address.value != 2**64 - 1:
                    result.append((address.value, address.value + length.value))
            return result
        if 0 < size <= 1 << 24:  # compact: the values are in the object header; find them by their bytes
            file_type = lib.H5Dget_type(dataset)
            buffer = ctypes.create_string_buffer(size)
            if lib.H5Tget_class(file_type) in (0, 1) and lib.H5Dread(dataset, file_type, 0, 0, 0, buffer) >= 0:
                patterns.append(("anywhere", buffer.raw))  # integer or float class: raw bytes as stored
            lib.H5Tclose(file_type)
        return []

    def _attribute_values(self, obj):
        lib = self.lib
        names = []

        def visit(_loc, name, _info, _data):
            names.append(name)
            return 0

        lib.H5Aiterate2(obj, 0, 0, None, self.visit_type(visit), None)
        values = []
        for name in names:
            attribute = lib.H5Aopen(obj, name, 0)
            if attribute < 0:
                continue
            file_type, space = lib.H5Aget_type(attribute), lib.H5Aget_space(attribute)
            count = lib.H5Sget_simple_extent_npoints(space)
            if lib.H5Tget_class(file_type) == 3 and 0 < count < 1 << 20:  # H5T_STRING
                if lib.H5Tis_variable_str(file_type) > 0:
                    memory_type = lib.H5Tcopy(self.c_s1)
                    lib.H5Tset_size(memory_type, ctypes.c_size_t(-1).value)  # H5T_VARIABLE
                    pointers = (ctypes.c_char_p * count)()
                    if lib.H5Aread(attribute, memory_type, pointers) >= 0:
                        values.extend(("heap", p) for p in pointers if p)
                    lib.H5Tclose(memory_type)
                else:
                    size = lib.H5Tget_size(file_type)
                    buffer = ctypes.create_string_buffer(size * count)
                    if lib.H5Aread(attribute, file_type, buffer) >= 0:
                        values.append(("anywhere", buffer.raw))  # stored as is, padding included
            lib.H5Tclose(file_type)
            lib.H5Sclose(space)
            lib.H5Aclose(attribute)
        return values


def merge(ranges):
    result = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if result and start <= result[-1][1]:
            result[-1] = (result[-1][0], max(result[-1][1], end))
        else:
            result.append((start, end))
    return result


def complement(ranges, size):
    result, at = [], 0
    for start, end in ranges:
        if start > at:
            result.append((at, min(start, size)))
        at = max(at, end)
    if at < size:
        result.append((at, size))
    return [r for r in result if r[1] > r[0]]


def inside(ranges, start, end):
    return any(s <= start and end <= e for s, e in ranges)


# ---------------------------------------------------------------------------------------------------
# Where mutations aim: structure rather than bulk values


def hot_ranges(kind, data, value_regions):
    """Ranges that hold a format's structure (headers, signatures, markers); about half of all byte
    mutations land in them, the rest anywhere."""
    size = len(data)
    near = lambda at, before, after: (max(0, at - before), min(size, at + after))
    if kind == "h5":
        if value_regions is not None:
            return complement(value_regions, size)
        spots = [m.start() for m in re.finditer(rb"OHDR|OCHK|TREE|HEAP|SNOD|GCOL|FRHP|FHDB|FHIB|BTHD|BTLF", data)]
        return merge([(0, min(size, 2048))] + [near(s, 32, 96) for s in spots])
    if kind == "keras":
        return merge([near(m.start(), 8, 64) for m in re.finditer(rb"PK\x03\x04|PK\x01\x02|PK\x05\x06", data)])
    if kind == "weights":
        return [(0, min(size, 24))]
    if kind == "npy":
        header_end = data.find(b"\n")
        return [(0, header_end + 1 if 0 < header_end < 4096 else min(size, 128))]
    if kind == "png":
        spots, at = [], 8
        while at + 8 <= size:
            length = int.from_bytes(data[at:at + 4], "big")
            spots.append((at, min(size, at + 8 + (length if data[at + 4:at + 8] != b"IDAT" else 0) + 4)))
            at += 12 + length
        return merge([(0, 8)] + spots)
    if kind == "jpeg":
        scan = data.find(b"\xff\xda")
        header = scan + 2 + int.from_bytes(data[scan + 2:scan + 4], "big") if scan > 0 else min(size, 1024)
        return [(0, min(size, header))]
    return []


def pick_offset(rng, size, hot):
    if hot and rng.random() < 0.5:
        start, end = rng.choice(hot)
        return rng.randrange(start, end)
    return rng.randrange(size)


# ---------------------------------------------------------------------------------------------------
# Mutations: each returns (new bytes, description, touched range or None when lengths change)


def m_bitflip(rng, data, hot):
    at = pick_offset(rng, len(data), hot)
    bit = rng.randrange(8)
    data[at] ^= 1 << bit
    return f"flip bit {bit} of byte {at}", (at, at + 1)


def m_setbyte(rng, data, hot):
    at = pick_offset(rng, len(data), hot)
    value = rng.choice([0x00, 0xFF, 0x7F, 0x80])
    data[at] = value
    return f"set byte {at} to 0x{value:02x}", (at, at + 1)


def m_integer(rng, data, hot):
    width = rng.choice([2, 4, 8])
    if len(data) < width:
        return m_setbyte(rng, data, hot)
    at = min(pick_offset(rng, len(data), hot), len(data) - width)
    value = rng.choice(INTERESTING)
    encoded = (value % (1 << (8 * width))).to_bytes(width, "little")
    data[at:at + width] = encoded
    return f"write {value} as {width}-byte little-endian at byte {at}", (at, at + width)


def m_truncate(rng, data, hot):
    keep = rng.choice([rng.randrange(len(data)), pick_offset(rng, len(data), hot), len(data) - rng.randint(1, 16)])
    keep = max(0, keep)
    del data[keep:]
    return f"truncate to {keep} bytes", None


def m_duplicate(rng, data, hot):
    start = pick_offset(rng, len(data), hot)
    length = min(len(data) - start, rng.choice([1, 4, 8, 16, 64, 512, 4096]))
    chunk = bytes(data[start:start + length])
    at = rng.choice([start + length, pick_offset(rng, len(data), hot)])
    data[at:at] = chunk
    return f"insert a copy of bytes [{start}, {start + length}) at byte {at}", None


def m_delete(rng, data, hot):
    start = pick_offset(rng, len(data), hot)
    length = min(len(data) - start, rng.choice([1, 4, 8, 16, 64, 512, 4096]))
    del data[start:start + length]
    return f"delete bytes [{start}, {start + length})", None


BYTE_MUTATIONS = [(m_bitflip, 0.28), (m_setbyte, 0.22), (m_integer, 0.28), (m_truncate, 0.06),
                  (m_duplicate, 0.08), (m_delete, 0.08)]


def cfg_lines(data):
    return data.decode("latin-1").split("\n")


def m_cfg_number(rng, lines):
    options = [i for i, line in enumerate(lines) if "=" in line and re.search(r"-?\d", line)]
    if not options:
        return None
    i = rng.choice(options)
    numbers = list(re.finditer(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", lines[i]))
    match = rng.choice(numbers)
    value = rng.choice(CFG_NUMBERS)
    old = lines[i]
    lines[i] = old[:match.start()] + value + old[match.end():]
    return f"line {i + 1}: '{old}' -> '{lines[i]}'"


def m_cfg_duplicate_line(rng, lines):
    i = rng.randrange(len(lines))
    at = rng.choice([i + 1, rng.randrange(len(lines) + 1)])
    lines.insert(at, lines[i])
    return f"copy line {i + 1} ('{lines[i]}') to line {at + 1}"


def m_cfg_delete_line(rng, lines):
    i = rng.randrange(len(lines))
    old = lines.pop(i)
    return f"delete line {i + 1} ('{old}')"


def m_cfg_swap_lines(rng, lines):
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return f"swap lines {i + 1} and {j + 1}"


def sections(lines):
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("[")]
    return [(s, (starts[k + 1] if k + 1 < len(starts) else len(lines))) for k, s in enumerate(starts)]


def m_cfg_repeat_section(rng, lines):
    found = sections(lines)
    if not found:
        return None
    start, end = rng.choice(found)
    copies = rng.choice([1, 1, 2, 5, 50])
    block = lines[start:end]
    at = rng.choice([end, rng.choice(found)[0]])
    lines[at:at] = block * copies
    return f"insert {copies} cop{'y' if copies == 1 else 'ies'} of the section at line {start + 1} ({lines[start].strip()}) at line {at + 1}"


def m_cfg_delete_section(rng, lines):
    found = sections(lines)
    if not found:
        return None
    start, end = rng.choice(found)
    name = lines[start].strip()
    del lines[start:end]
    return f"delete the section at line {start + 1} ({name})"


def m_cfg_value(rng, lines):
    options = [i for i, line in enumerate(lines) if "=" in line]
    if not options:
        return None
    i = rng.choice(options)
    key, _, value = lines[i].partition("=")
    new = rng.choice(["", "=", "0x10", "1,2,3," * 50, "-", value + value, "a", "  ", "1" * 400])
    old = lines[i]
    lines[i] = f"{key}={new}"
    return f"line {i + 1}: '{old}' -> '{lines[i][:80]}'"


CFG_MUTATIONS = [(m_cfg_number, 0.40), (m_cfg_duplicate_line, 0.12), (m_cfg_delete_line, 0.12),
                 (m_cfg_swap_lines, 0.06), (m_cfg_repeat_section, 0.12), (m_cfg_delete_section, 0.06),
                 (m_cfg_value, 0.12)]


def mutate(rng, kind, original, hot):
    """Applies 1-3 mutations; returns (mutant bytes, descriptions, touched ranges or None if any
    mutation changed the length)."""
    data = bytearray(original)
    descriptions, touched = [], []
    for _ in range(rng.choices([1, 2, 3], [0.7, 0.2, 0.1])[0]):
        if kind == "cfg" and rng.random() < 0.85:
            lines = cfg_lines(bytes(data))
            function = rng.choices([f for f, _ in CFG_MUTATIONS], [w for _, w in CFG_MUTATIONS])[0]
            described = function(rng, lines)
            if described is None:
                continue
            data = bytearray("\n".join(lines).encode("latin-1"))
            descriptions.append(described)
            touched = None
            continue
        if not data:
            break
        function = rng.choices([f for f, _ in BYTE_MUTATIONS], [w for _, w in BYTE_MUTATIONS])[0]
        described, span = function(rng, data, hot)
        descriptions.append(described)
        if span is None or touched is None:
            touched = None
        else:
            touched.append(span)
        if len(data) != len(original):
            hot = [(0, len(data))] if data else []
    return bytes(data), descriptions, touched


# ---------------------------------------------------------------------------------------------------
# Running foldkit


def run_command(argv, cwd, tmpdir, kill_seconds, kill_rss):
    """Runs argv; returns (exit code or -signal, seconds, peak RSS bytes, killed reason or None)."""
    env = dict(os.environ, TMPDIR=tmpdir, NO_COLOR="1")
    with open(os.path.join(cwd, "stdout"), "wb") as out, open(os.path.join(cwd, "stderr"), "wb") as err:
        start = time.monotonic()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
        done, killed = threading.Event(), []

        def watch():
            page = os.sysconf("SC_PAGE_SIZE")
            while not done.wait(0.05):
                reason = None
                if time.monotonic() - start > kill_seconds:
                    reason = f"killed after {kill_seconds} s"
                else:
                    try:
                        with open(f"/proc/{process.pid}/statm") as statm:
                            rss = int(statm.read().split()[1]) * page
                        if rss > kill_rss:
                            reason = f"killed at {rss / GIB:.1f} GiB resident"
                    except (OSError, ValueError, IndexError):
                        pass
                if reason:
                    killed.append(reason)
                    try:
                        os.killpg(process.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.monotonic() - start
        done.set()
        watcher.join()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
    return process.returncode, seconds, usage.ru_maxrss * 1024, (killed[0] if killed else None)


def blob_summary(out_dir):
    """The manifest's tensors and layers (source paths and checksums dropped) and every blob's sha256
    as read from disk; problems are the manifest's entries whose file does not match."""
    manifest = json.load(open(os.path.join(out_dir, "manifest.json")))
    tensors, problems = [], []
    for entry in manifest.get("tensors", []):
        path = os.path.join(out_dir, entry["file"])
        actual = sha256(path) if os.path.isfile(path) else None
        if actual != entry.get("sha256"):
            problems.append(f"{entry['file']}: manifest sha256 {entry.get('sha256')}, file {actual}")
        tensors.append({k: entry.get(k) for k in ("name", "file", "shape", "layout", "dtype", "role", "byteCount", "layer")}
                       | {"bytes": actual})
    return {"tensors": tensors, "layers": manifest.get("layers")}, problems


def describe_difference(base, new):
    if base["layers"] != new["layers"]:
        return "the layer list differs"
    names = {t["name"]: t for t in base["tensors"]}
    changed = [t["name"] for t in new["tensors"] if names.get(t["name"]) != t]
    missing = sorted(set(names) - {t["name"] for t in new["tensors"]})
    return f"tensors differ: {', '.join(changed[:6])}{' ...' if len(changed) > 6 else ''}" + (
        f"; missing {', '.join(missing[:6])}" if missing else "")


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.foldkit = os.path.abspath(args.foldkit)
        self.work = os.path.abspath(args.work)
        self.findings_dir = os.path.abspath(args.findings)
        self.values = HDF5Values()
        self.seeds, self.dropped, self.skipped = [], [], []
        self.baselines = {}

    # -- seeds --------------------------------------------------------------------------------------

    def load_seeds(self):
        listing = json.load(open(os.path.join(REPO, "Fuzz", "mutation-seeds.json")))
        for entry in listing["seeds"]:
            if self.args.kinds and entry["kind"] not in self.args.kinds:
                continue
            if "glob" in entry:
                files = sorted(glob.glob(os.path.join(REPO, entry["glob"])))
                paths = [os.path.relpath(f, REPO) for f in files]
            else:
                paths = [entry["file"]]
            for path in paths:
                needed = [path] + [a for c in entry["commands"] for a in c["argv"] if a.startswith("shared:")]
                missing = [p for p in needed if not os.path.exists(resolve(p))]
                if missing:
                    self.skipped.append(f"{path} (missing {', '.join(sorted(set(missing)))})")
                    continue
                self.seeds.append(dict(entry, file=path))

    def preflight(self):
        """Runs each seed's commands on the unmutated file; drops seeds that do not exit 0 (an export the
        original is refused, for a format without that layer's lowering, drops that command only). Keeps
        the original's blobs for comparison and the value regions of .h5 seeds."""
        kept = []
        for index, seed in enumerate(self.seeds):
            data = open(resolve(seed["file"]), "rb").read()
            seed["data"] = data
            regions = None
            if seed["kind"] == "h5" and self.values.available:
                regions = self.values.regions(resolve(seed["file"]))
            seed["values"] = regions
            seed["hot"] = hot_ranges(seed["kind"], data, regions)
            ok = True
            for command in list(seed["commands"]):
                result = self.execute(seed, command, data, f"preflight-{index}")
                if result["exit"] != 0 and command["argv"][0] == "export":
                    seed["commands"] = [c for c in seed["commands"] if c is not command]
                    self.dropped.append(f"{seed['file']}: {' '.join(command['argv'][-2:])} exits {result['exit']} on the "
                                        f"original (the command dropped, the seed kept: {result['stderr'][:120].strip()})")
                    shutil.rmtree(result["dir"], ignore_errors=True)
                    continue
                if result["exit"] != 0:
                    ok = False
                    self.dropped.append(f"{seed['file']}: {command['argv'][0]} exits {result['exit']} on the original "
                                        f"({result['stderr'][:160].strip()})")
                    break
                if command["argv"][0] == "convert" and seed.get("compare"):
                    seed["baseline"] = result["blobs"]
                shutil.rmtree(result["dir"], ignore_errors=True)
            if ok:
                kept.append(seed)
        self.seeds = kept

    # -- one run ------------------------------------------------------------------------------------

    def execute(self, seed, command, data, name):
        run_dir = os.path.join(self.work, name)
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(os.path.join(run_dir, "tmp"))
        base = os.path.basename(seed["file"])
        mutant = os.path.join(run_dir, base)
        with open(mutant, "wb") as f:
            f.write(data)
        out = os.path.join(run_dir, "out")
        argv = [self.foldkit] + [mutant if a == "{mutant}" else out if a == "{out}" else resolve(a) if a.startswith("shared:")
                                 else os.path.join(REPO, a) if a.startswith(("Fixtures/", "Docs/")) else a
                                 for a in command["argv"]] + ["--quiet"]
        code, seconds, rss, killed = run_command(argv, run_dir, os.path.join(run_dir, "tmp"), self.args.kill_seconds,
                                                 self.args.kill_rss)
        stderr = open(os.path.join(run_dir, "stderr"), "rb").read().decode("utf-8", "replace")
        problems = []
        subcommand = command["argv"][0]
        if killed:
            problems.append(killed)
        if code < 0:
            problems.append(f"killed by signal {-code} ({signal.Signals(-code).name})")
        elif code not in DOCUMENTED_EXITS[subcommand]:
            problems.append(f"exit code {code}, not one {subcommand} documents")
        if seconds > self.args.max_seconds:
            problems.append(f"took {seconds:.1f} s (limit {self.args.max_seconds} s)")
        if rss > self.args.max_rss:
            problems.append(f"peak resident set {rss / GIB:.2f} GiB (limit {self.args.max_rss / GIB:.2f} GiB)")
        expected = {base, "tmp", "stdout", "stderr"} | ({"out"} if code == 0 and "{out}" in command["argv"] else set())
        extra = sorted(set(os.listdir(run_dir)) - expected)
        if extra:
            problems.append(f"left behind beside --out: {', '.join(extra)}")
        if os.listdir(os.path.join(run_dir, "tmp")):
            problems.append(f"left behind in TMPDIR: {', '.join(sorted(os.listdir(os.path.join(run_dir, 'tmp'))))}")
        blobs = None
        if code == 0 and subcommand == "convert":
            if not os.path.isfile(os.path.join(out, "manifest.json")):
                problems.append("exit 0 without manifest.json")
            else:
                blobs, mismatches = blob_summary(out)
                problems.extend(f"manifest does not match its blob: {m}" for m in mismatches)
        if code == 0 and subcommand == "export":
            fmt = command["argv"][command["argv"].index("--format") + 1]
            missing = [f for f in EXPORT_FILES[fmt] if not os.path.isfile(os.path.join(out, f))]
            if missing:
                problems.append(f"exit 0 without {', '.join(missing)}")
        return {"exit": code, "seconds": seconds, "rss": rss, "problems": problems, "blobs": blobs,
                "stderr": stderr, "dir": run_dir, "argv": argv, "mutant": mutant}

    def plan(self, index):
        """Everything run `index` does, from (seed, index) alone."""
        rng = random.Random(f"{self.args.seed}/{index}")
        kinds = sorted({s["kind"] for s in self.seeds}, key=KINDS.index)
        kind = rng.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
        # Real models (shared:) are picked four times as often as the generated Fixtures/ files of their kind.
        candidates = [s for s in self.seeds if s["kind"] == kind]
        seed = rng.choices(candidates, [4 if s["file"].startswith("shared:") else 1 for s in candidates])[0]
        command = rng.choices(seed["commands"], [c["weight"] for c in seed["commands"]])[0]
        data, descriptions, touched = mutate(rng, kind, seed["data"], seed["hot"])
        return seed, command, data, descriptions, touched

    def run_one(self, index):
        seed, command, data, descriptions, touched = self.plan(index)
        result = self.execute(seed, command, data, f"run-{index}")
        verdict = None
        if result["blobs"] is not None and seed.get("baseline") is not None:
            if result["blobs"] == seed["baseline"]:
                verdict = "identical"
            elif seed["kind"] == "h5" and self.explained_by_values(seed, command, data, touched, index):
                verdict = "content changed"
            else:
                verdict = "differs"
                result["problems"].append("accepted with different blobs (silent corruption): "
                                          + describe_difference(seed["baseline"], result["blobs"]))
        record = {"index": index, "kind": seed["kind"], "seed": seed["file"], "command": command["argv"][0],
                  "mutations": descriptions, "exit": result["exit"], "seconds": round(result["seconds"], 3),
                  "rss": result["rss"], "compare": verdict, "problems": result["problems"]}
        if result["problems"]:
            self.save_finding(record, result)
        elif result["exit"] == 2:
            self.save_finding(record, result, folder="notes")
        if not self.args.keep:
            shutil.rmtree(result["dir"], ignore_errors=True)
        return record, result

    def explained_by_values(self, seed, command, data, touched, index):
        """True when the mutations that changed the blobs are all in value bytes of the .h5 seed. Mutations
        that change the file's length never are. When some touched bytes are values and some structure, the
        structure-only part (the mutant's bytes at those places, the original's elsewhere) must convert to
        the original's blobs exactly."""
        if touched is None or seed["values"] is None:
            return False
        structure = [(s, e) for s, e in touched if not inside(seed["values"], s, e)]
        if not structure:
            return True
        if len(structure) == len(touched):
            return False
        partial = bytearray(seed["data"])
        for s, e in structure:
            partial[s:e] = data[s:e]
        result = self.execute(seed, command, bytes(partial), f"run-{index}-structure-only")
        shutil.rmtree(result["dir"], ignore_errors=True)
        return result["exit"] == 0 and result["blobs"] == seed["baseline"]

    def save_finding(self, record, result, folder="findings"):
        target = os.path.join(self.findings_dir, f"seed{self.args.seed}", folder, f"run-{record['index']}")
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        shutil.copy(result["mutant"], target)
        for name in ("stdout", "stderr"):
            shutil.copy(os.path.join(result["dir"], name), target)
        with open(os.path.join(target, "finding.json"), "w") as f:
            json.dump(dict(record, argv=result["argv"],
                           replay=f"python3 Fuzz/mutate.py --seed {self.args.seed} --replay {record['index']}"), f, indent=1)


# ---------------------------------------------------------------------------------------------------
# The global heap ID sweep


def heap_id_locations(path):
    """Every variable-length string stored in the file's attributes is a heap ID (4-byte length, 8-byte
    collection address, 4-byte object index) pointing into a 'GCOL' collection. Returns
    [(offset of the 16 bytes, collection address, index, length)] for every such ID found."""
    data = open(path, "rb").read()
    objects = {}  # (collection address, index) -> object bytes
    for match in re.finditer(rb"GCOL", data):
        start = match.start()
        size = int.from_bytes(data[start + 8:start + 16], "little")
        if data[start + 4] != 1 or size < 4096 or start + size > len(data):
            continue
        at = start + 16
        while at + 16 <= start + size:
            index = int.from_bytes(data[at:at + 2], "little")
            length = int.from_bytes(data[at + 8:at + 16], "little")
            if index == 0:
                break
            objects[(start, index)] = data[at + 16:at + 16 + length]
            at += 16 + (length + 7) // 8 * 8
    found = []
    for (address, index), body in objects.items():
        pattern = len(body).to_bytes(4, "little") + address.to_bytes(8, "little") + index.to_bytes(4, "little")
        at = data.find(pattern)
        while at >= 0:
            found.append((at, address, index, len(body)))
            at = data.find(pattern, at + 1)
    return sorted(found)


def heap_sweep(fuzzer, seed_path):
    seed = {"kind": "h5", "file": seed_path, "commands": [{"weight": 1, "argv": ["convert", "{mutant}", "--out", "{out}"]}]}
    data = open(resolve(seed_path), "rb").read()
    ids = heap_id_locations(resolve(seed_path))
    print(f"{seed_path}: {len(ids)} global heap IDs in attributes")
    for at, address, index, length in ids:
        print(f"  at byte {at}: length {length}, collection {address}, object {index}")
    original = fuzzer.execute(seed, seed["commands"][0], data, "heap-sweep-original")
    print(f"  original: exit {original['exit']}, {original['seconds']:.2f} s, {original['rss'] / GIB:.2f} GiB")
    records, slow = [], []
    for at, address, index, length in ids:
        for offset in range(at, at + 16):
            field = "length" if offset < at + 4 else "address" if offset < at + 12 else "index"
            values = sorted(({0x00, 0xFF, 0x7F, 0x80} | {data[offset] ^ (1 << b) for b in range(8)}) - {data[offset]})
            for value in values:
                mutant = bytearray(data)
                mutant[offset] = value
                result = fuzzer.execute(seed, seed["commands"][0], bytes(mutant), "heap-sweep")
                record = {"offset": offset, "field": field, "value": value, "exit": result["exit"],
                          "seconds": round(result["seconds"], 3), "rss": result["rss"], "problems": result["problems"]}
                if result["exit"] == 0 and result["blobs"] is not None:
                    record["identical"] = result["blobs"] == original["blobs"]
                records.append(record)
                if result["seconds"] > 1 or result["rss"] > GIB or result["problems"]:
                    slow.append(record)
                    print(f"  byte {offset} ({field} of the ID at {at}) = 0x{value:02x}: exit {result['exit']}, "
                          f"{result['seconds']:.2f} s, {result['rss'] / GIB:.2f} GiB; {'; '.join(result['problems'])}", flush=True)
    print(f"{len(records)} mutants: exit codes {count_by(records, 'exit')}; "
          f"slowest {max(r['seconds'] for r in records):.2f} s; largest peak RSS {max(r['rss'] for r in records) / GIB:.2f} GiB; "
          f"{len(slow)} over 1 s or 1 GiB or with a problem")
    for at, _, _, _ in ids:
        for field in ("length", "address", "index"):
            chosen = [r for r in records if r["field"] == field and at <= r["offset"] < at + 16]
            accepted = [r for r in chosen if "identical" in r]
            print(f"  ID at {at}, {field}: {len(chosen)} mutants, exit codes {count_by(chosen, 'exit')}, "
                  f"slowest {max(r['seconds'] for r in chosen):.2f} s, largest {max(r['rss'] for r in chosen) / GIB:.2f} GiB, "
                  f"accepted with the original's blobs {sum(1 for r in accepted if r['identical'])}, "
                  f"with other blobs {sum(1 for r in accepted if not r['identical'])}")
    target = os.path.join(fuzzer.findings_dir, "heap-ids")
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, os.path.basename(seed_path) + ".json"), "w") as f:
        json.dump(records, f, indent=0)
    return records


def count_by(records, key):
    counts = {}
    for record in records:
        counts[record[key]] = counts.get(record[key], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: str(kv[0])))


# ---------------------------------------------------------------------------------------------------


def summarize(fuzzer, records, started, elapsed):
    args = fuzzer.args
    lines = [f"mutation fuzzing: seed {args.seed}, {len(records)} runs, {elapsed / 60:.1f} min, started {started}",
             f"foldkit: {fuzzer.foldkit}", ""]
    lines.append("| kind | runs | exit 0 | exit 1 | other exits / signals | slowest (s) | largest peak RSS (MiB) | blobs identical / content changed / differ | findings |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for kind in KINDS + ["all"]:
        chosen = [r for r in records if kind in ("all", r["kind"])]
        if not chosen:
            continue
        exits = count_by(chosen, "exit")
        other = {k: v for k, v in exits.items() if k not in (0, 1)}
        compares = count_by([r for r in chosen if r["compare"]], "compare")
        compared = "/".join(str(compares.get(k, 0)) for k in ("identical", "content changed", "differs")) \
            if kind in ("h5", "keras", "all") else "-"
        lines.append(f"| {kind} | {len(chosen)} | {exits.get(0, 0)} | {exits.get(1, 0)} | "
                     f"{', '.join(f'{k}: {v}' for k, v in other.items()) or '-'} | {max(r['seconds'] for r in chosen):.2f} | "
                     f"{max(r['rss'] for r in chosen) / (1 << 20):.0f} | {compared} | {sum(1 for r in chosen if r['problems'])} |")
    slowest = max(records, key=lambda r: r["seconds"])
    largest = max(records, key=lambda r: r["rss"])
    commands = count_by(records, "command")
    lines += ["", f"commands: {', '.join(f'{k} {v}' for k, v in commands.items())}",
              f"slowest run: #{slowest['index']} {slowest['seconds']:.2f} s ({slowest['command']} {slowest['seed']}: {'; '.join(slowest['mutations'])})",
              f"largest peak RSS: #{largest['index']} {largest['rss'] / (1 << 20):.0f} MiB ({largest['command']} {largest['seed']}: {'; '.join(largest['mutations'])})"]
    notes = [r for r in records if r["exit"] == 2]
    if notes:
        lines.append(f"verify over tolerance (exit 2, documented; kept under notes/): {', '.join('#' + str(r['index']) for r in notes)}")
    findings = [r for r in records if r["problems"]]
    lines.append(f"findings: {len(findings)}")
    for r in findings:
        lines.append(f"  #{r['index']} {r['command']} {r['seed']}: {'; '.join(r['mutations'])} -> exit {r['exit']}, "
                     f"{r['seconds']:.2f} s, {r['rss'] / (1 << 20):.0f} MiB: {'; '.join(r['problems'])}")
    lines.append(f"seeds: {len(fuzzer.seeds)} ({', '.join(f'{k} {v}' for k, v in count_by(fuzzer.seeds, 'kind').items())})")
    for text in fuzzer.skipped:
        lines.append(f"  skipped, file absent: {text}")
    for text in fuzzer.dropped:
        lines.append(f"  dropped, original does not run: {text}")
    if not fuzzer.values.available:
        lines.append("libhdf5 not found through ctypes: every .h5 blob difference counts as a finding")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--foldkit", default=os.environ.get("FOLDKIT", os.path.join(REPO, ".build/release/foldkit")))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--first", type=int, default=0, help="index of the first run (to continue a series)")
    parser.add_argument("--kinds", nargs="*", choices=KINDS, help="only these file kinds")
    parser.add_argument("--work", default=os.path.join(REPO, ".build-fuzz", "mutate"),
                        help="scratch folder for mutants and outputs (default .build-fuzz/mutate)")
    parser.add_argument("--findings", default=os.path.join(os.path.dirname(REPO), "mutation-findings"),
                        help="where findings and the summary go, outside the repository (default ../mutation-findings)")
    parser.add_argument("--max-seconds", type=float, default=20)
    parser.add_argument("--kill-seconds", type=float, default=30)
    parser.add_argument("--max-rss", type=int, default=GIB)
    parser.add_argument("--kill-rss", type=int, default=4 * GIB)
    parser.add_argument("--replay", type=int, help="run this index only, print what it does, keep its folder")
    parser.add_argument("--keep", action="store_true", help="keep every run's folder under --work")
    parser.add_argument("--heap-ids", metavar="H5", help="instead of random runs: mutate every byte of every global "
                        "heap ID in this file's attributes (a path, or shared:...) and report slow or large runs")
    args = parser.parse_args()
    if os.nice(0) < 10:
        os.nice(10 - os.nice(0))
    if not os.access(args.foldkit, os.X_OK):
        sys.exit(f"error: no foldkit binary at {args.foldkit} (build one, or pass --foldkit / set FOLDKIT)")
    if not os.path.isdir(shared_root()):
        print(f"note: {shared_root()} is absent: real-model seeds are skipped, only the Fixtures/ seeds run", file=sys.stderr)
    fuzzer = Fuzzer(args)
    os.makedirs(fuzzer.work, exist_ok=True)
    if args.heap_ids:
        if not os.path.exists(resolve(args.heap_ids)):
            print(f"skipped: {resolve(args.heap_ids)} is absent")
            return 0
        records = heap_sweep(fuzzer, args.heap_ids)
        return 1 if any(r["problems"] or r["seconds"] > 1 or r["rss"] > GIB for r in records) else 0
    fuzzer.load_seeds()
    fuzzer.preflight()
    if not fuzzer.seeds:
        sys.exit("error: no seed file runs (are Fixtures/ and the shared folder there?)")
    if args.replay is not None:
        args.keep = True
        record, result = fuzzer.run_one(args.replay)
        print(json.dumps(dict(record, argv=result["argv"], folder=result["dir"]), indent=1))
        return 1 if record["problems"] else 0
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    t0 = time.monotonic()
    records = []
    log_path = os.path.join(fuzzer.findings_dir, f"seed{args.seed}", "runs.jsonl")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "w") as log:
        for index in range(args.first, args.first + args.runs):
            record, _ = fuzzer.run_one(index)
            records.append(record)
            log.write(json.dumps(record) + "\n")
            log.flush()
            if record["problems"]:
                print(f"FINDING #{index} {record['command']} {record['seed']}: {'; '.join(record['mutations'])}: "
                      f"{'; '.join(record['problems'])}", flush=True)
            if (index - args.first + 1) % 100 == 0:
                print(f"{index - args.first + 1}/{args.runs} runs, {time.monotonic() - t0:.0f} s, "
                      f"findings {sum(1 for r in records if r['problems'])}", flush=True)
    summary = summarize(fuzzer, records, started, time.monotonic() - t0)
    with open(os.path.join(fuzzer.findings_dir, f"seed{args.seed}", "summary.md"), "w") as f:
        f.write(summary + "\n")
    print(summary)
    return 1 if any(r["problems"] for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
