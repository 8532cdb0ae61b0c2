#!/usr/bin/env python3
"""Writes the link order of an extension's start-up and request path.

Runs an extension executable under valgrind's callgrind, standing in for appexd and for a
host with the wire protocol of docs/wire.md (its descriptors 3 and 4, as appexd gives
them), sends it a number of requests, closes its session so that it exits, and prints
the mangled name of every function it ran, one per line: a symbol ordering file for
lld (`--symbol-ordering-file`), which puts the code an extension runs together, so that
fewer pages of the executable are touched. See Support/link-order/README.md.

usage: profile-extension.py EXECUTABLE PRINCIPAL_CLASS [REQUESTS] > extension.order
"""
import fcntl
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import uuid


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type, payload):
    key = varint(number << 3 | wire_type)
    if wire_type == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def frame(message_type, payload):
    return struct.pack("<IHBB", len(payload), message_type, 0, 0) + payload


def read_frame(sock):
    header = b""
    while len(header) < 8:
        chunk = sock.recv(8 - len(header))
        if not chunk:
            return None
        header += chunk
    length, message_type, _, _ = struct.unpack("<IHBB", header)
    payload = b""
    while len(payload) < length:
        chunk = sock.recv(length - len(payload))
        if not chunk:
            return None
        payload += chunk
    return message_type, payload


HELLO, WELCOME, CHECK_IN, EXTENSION_REQUEST, COMPLETE_REQUEST, REQUEST_ACKNOWLEDGED = 1, 2, 30, 40, 43, 45


def top_level_fields(payload):
    """The top-level fields of a protobuf payload: (number, value), a varint's value or a length-delimited field's bytes."""
    fields, index = [], 0

    def read_varint():
        nonlocal index
        value, shift = 0, 0
        while True:
            byte = payload[index]
            index += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while index < len(payload):
        key = read_varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            fields.append((number, read_varint()))
        elif wire_type == 2:
            length = read_varint()
            fields.append((number, payload[index:index + length]))
            index += length
        else:
            raise ValueError(f"wire type {wire_type} is not used by the protocol")
    return fields


def hello(role):
    return frame(HELLO, field(1, 2, b"appex") + field(2, 0, 1) + field(3, 0, 2) + field(4, 0, role) + field(5, 2, b"profile"))


def welcome():
    return frame(WELCOME, field(1, 0, 2) + field(2, 0, os.getpid() * 2) + field(3, 2, b"appexd"))


def text_request(request_id):
    """An ExtensionRequest with one item whose one attachment offers text, as BenchItems.text does."""
    representations = b"".join(
        field(3, 2, field(1, 2, name) + field(2, 0, 2)) for name in (b"public.utf8-plain-text", b"public.plain-text"))
    attachment = field(1, 0, 1) + representations
    item = field(4, 2, attachment)
    return frame(EXTENSION_REQUEST, field(1, 2, request_id) + field(2, 2, item))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    executable, principal_class = sys.argv[1], sys.argv[2]
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    control_ours, control_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    session_ours, session_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with tempfile.TemporaryDirectory(prefix="appex-link-order-") as scratch:
        output = os.path.join(scratch, "callgrind.out")
        name = os.path.basename(executable)
        # A copy without debug information, which valgrind 3.19 can't read (DWARF 5); the
        # symbol table, which names the functions, stays.
        stripped = os.path.join(scratch, name)
        subprocess.run(["objcopy", "--strip-debug", executable, stripped], check=True)
        environment = {
            "PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch,
            "APPEX_EXTENSION_BUNDLE": scratch, "APPEX_BUNDLE_IDENTIFIER": "com.example.link-order",
            "APPEX_EXECUTABLE_NAME": name, "APPEX_PRINCIPAL_CLASS": principal_class,
        }

        # Above the descriptors the extension gets, so that putting them at 3 and 4 overwrites
        # nothing; close-on-exec, so only 3 and 4 reach it.
        control_raw = fcntl.fcntl(control_theirs.fileno(), fcntl.F_DUPFD_CLOEXEC, 10)
        session_raw = fcntl.fcntl(session_theirs.fileno(), fcntl.F_DUPFD_CLOEXEC, 10)

        def descriptors():
            os.dup2(control_raw, 3)
            os.dup2(session_raw, 4)

        child = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--dump-instr=no",
             f"--callgrind-out-file={output}", stripped],
            env=environment, preexec_fn=descriptors, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=scratch)
        for descriptor in (control_raw, session_raw):
            os.close(descriptor)
        control_theirs.close()
        session_theirs.close()
        checked_in = False
        while not checked_in:
            received = read_frame(control_ours)
            if received is None:
                sys.exit("the extension closed its control channel before checking in")
            if received[0] == HELLO:
                control_ours.sendall(welcome())
            checked_in = received[0] == CHECK_IN
        session_ours.sendall(hello(4))
        for _ in range(requests):
            request_id = uuid.uuid4().bytes
            session_ours.sendall(text_request(request_id))
            while True:
                received = read_frame(session_ours)
                if received is None:
                    sys.exit("the extension closed its session before answering")
                if received[0] == COMPLETE_REQUEST:
                    # Field 3, without_acknowledgement: no completion handler waits.
                    if (3, 1) not in top_level_fields(received[1]):
                        session_ours.sendall(frame(REQUEST_ACKNOWLEDGED, field(1, 2, request_id)))
                    break
        session_ours.close()
        child.wait(timeout=120)
        control_ours.close()
        functions = []
        seen = set()
        with open(output, errors="replace") as profile:
            for line in profile:
                match = re.match(r"^c?fn=(?:\(\d+\) )?(\S+)", line)
                # Code with no symbol is named by its address, which orders nothing.
                if match and not match.group(1).startswith("0x") and match.group(1) not in seen:
                    seen.add(match.group(1))
                    functions.append(match.group(1))
    for function in functions:
        print(function)


if __name__ == "__main__":
    main()
