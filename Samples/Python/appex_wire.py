"""Appex's wire protocol in Python: frames, descriptors and the handshake (docs/wire.md).

The messages are the classes protoc generates from docs/wire.proto:

    protoc --python_out=. --proto_path=docs docs/wire.proto     # writes wire_pb2.py

This module adds what the .proto can't say: the 8-byte frame header that names each message
by its type number, the descriptors that travel beside a frame (SCM_RIGHTS), where appexd
listens, and the Hello/Welcome handshake.
"""
import array
import os
import socket
import stat
import struct

import wire_pb2 as wire

VERSION_MINIMUM, VERSION_MAXIMUM = 1, 8
MAXIMUM_PAYLOAD = 1 << 20
MAXIMUM_DESCRIPTORS = 64
HEADER = struct.Struct("<IHBB")  # payload length, message type, descriptor count, flags

# docs/wire.md, "Message types": the number the frame header carries for each message.
TYPES = {
    1: wire.Hello, 2: wire.Welcome, 3: wire.Failure, 4: wire.Goodbye, 5: wire.Ping, 6: wire.Pong,
    10: wire.QueryExtensions, 11: wire.QueryResult, 12: wire.BeginRequest, 13: wire.RequestStarted,
    14: wire.EndRequest, 15: wire.CancelRequest, 16: wire.RequestInterrupted, 17: wire.ListProcesses,
    18: wire.ProcessList, 19: wire.CloseSession, 20: wire.RequestBegun, 21: wire.SessionIdle,
    30: wire.CheckIn, 31: wire.OpenURL, 32: wire.OpenURLResult, 33: wire.GroupContainer,
    34: wire.GroupContainerResult, 35: wire.PickFiles, 36: wire.PickedFiles, 37: wire.WidgetHasContent,
    38: wire.WidgetHasContentResult,
    40: wire.ExtensionRequest, 41: wire.LoadRequest, 42: wire.LoadResult, 43: wire.CompleteRequest,
    44: wire.CancelledRequest, 45: wire.RequestAcknowledged, 46: wire.PointMessage,
    50: wire.TransferAttach, 51: wire.TransferSession, 52: wire.TransferCreate, 53: wire.TransferTaskResult,
    54: wire.TransferCancel, 55: wire.TransferAcknowledge, 56: wire.TransferUpdate, 57: wire.TransferEvents,
}
NUMBERS = {kind.DESCRIPTOR.full_name: number for number, kind in TYPES.items()}


class ProtocolError(Exception):
    """The peer broke the protocol, or refused us: what happened, in one line."""


class Channel:
    """One connection: whole frames out, whole frames in, each with its descriptors."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = bytearray()
        self.descriptors = []  # received, not yet claimed by a complete frame

    def send(self, message, descriptors=()):
        """Sends `message` as one frame, with `descriptors` (ints) in its slots 0, 1, …"""
        payload = message.SerializeToString()
        if len(payload) > MAXIMUM_PAYLOAD:
            raise ProtocolError(f"{message.DESCRIPTOR.name} encodes to {len(payload)} bytes; send large data as a descriptor")
        frame = HEADER.pack(len(payload), NUMBERS[message.DESCRIPTOR.full_name], len(descriptors), 0) + payload
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", descriptors))] if descriptors else []
        sent = self.sock.sendmsg([frame], rights)
        while sent < len(frame):
            sent += self.sock.send(frame[sent:])

    def receive(self):
        """The next message and its descriptors, or (None, []) once the peer has closed."""
        while True:
            if len(self.buffer) >= HEADER.size:
                length, number, count, flags = HEADER.unpack_from(self.buffer)
                if length > MAXIMUM_PAYLOAD or flags != 0 or count > MAXIMUM_DESCRIPTORS:
                    raise ProtocolError(f"a frame header announces {length} bytes, {count} descriptors, flags {flags}")
                if len(self.buffer) >= HEADER.size + length:
                    payload = bytes(self.buffer[HEADER.size:HEADER.size + length])
                    del self.buffer[:HEADER.size + length]
                    if count > len(self.descriptors):
                        raise ProtocolError(f"a frame announces {count} descriptors and {len(self.descriptors)} came")
                    descriptors, self.descriptors = self.descriptors[:count], self.descriptors[count:]
                    if number not in TYPES:
                        raise ProtocolError(f"message type {number} is not one this program knows")
                    message = TYPES[number]()
                    message.ParseFromString(payload)
                    return message, descriptors
            data, descriptors, flags, _ = socket.recv_fds(self.sock, 65536, MAXIMUM_DESCRIPTORS, socket.MSG_CMSG_CLOEXEC)
            self.descriptors += descriptors
            if flags & socket.MSG_CTRUNC:
                raise ProtocolError("more descriptors came with one read than a frame may carry")
            if not data:
                if self.buffer:
                    raise ProtocolError("the peer closed the connection in the middle of a frame")
                return None, []
            self.buffer += data

    def close(self):
        for descriptor in self.descriptors:
            os.close(descriptor)
        self.descriptors = []
        self.sock.close()


def hello(role, name):
    """The first frame of a connection, from the side that opened it."""
    return wire.Hello(protocol="appex", minimum_version=VERSION_MINIMUM, maximum_version=VERSION_MAXIMUM, role=role, name=name)


def welcome_for(message, name):
    """The answer to a peer's Hello: a Welcome with the highest version both speak, or a Failure."""
    if not isinstance(message, wire.Hello) or message.protocol != "appex":
        return wire.Failure(error=wire.ErrorInfo(domain="AppexWire", code=1, description="the first frame is not an appex Hello"))
    version = min(VERSION_MAXIMUM, message.maximum_version)
    if version < max(VERSION_MINIMUM, message.minimum_version):
        return wire.Failure(error=wire.ErrorInfo(domain="AppexWire", code=1, description=(
            f"this program speaks versions {VERSION_MINIMUM} to {VERSION_MAXIMUM}, "
            f"the peer {message.minimum_version} to {message.maximum_version}")))
    return wire.Welcome(version=version, pid=os.getpid(), name=name)


def greet(channel, role, name):
    """Sends Hello and returns the peer's Welcome; a Failure or a version not offered raises."""
    channel.send(hello(role, name))
    answer, _ = channel.receive()
    if isinstance(answer, wire.Failure):
        raise ProtocolError(f"refused: {answer.error.description}")
    if not isinstance(answer, wire.Welcome) or not VERSION_MINIMUM <= answer.version <= VERSION_MAXIMUM:
        raise ProtocolError(f"the answer to Hello is not a Welcome to a version offered: {answer}")
    return answer


def runtime_folder():
    """Where appexd listens (docs/wire.md, "Where the daemon listens")."""
    if os.environ.get("APPEX_HOME"):
        return os.path.join(os.environ["APPEX_HOME"], "run")
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return os.path.join(runtime, "appex")
    return f"/tmp/appex-{os.getuid()}"


def connect_to_daemon(role, name):
    """A greeted channel to the user's appexd, checked first to be the user's own.

    The folder must belong to the user with no one else allowed to write in it, and the
    listener must run as the user (SO_PEERCRED): under /tmp another user could have made
    the folder first. Nothing is sent to a listener that fails either check.
    """
    folder = runtime_folder()
    info = os.stat(folder)
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ProtocolError(f"{folder} is not the user's own folder (owner {info.st_uid}, mode {oct(info.st_mode & 0o777)})")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.connect(os.path.join(folder, "appexd.sock"))
    _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    if uid != os.getuid():
        sock.close()
        raise ProtocolError(f"the listener in {folder} runs as user {uid}, not this user")
    channel = Channel(sock)
    greet(channel, role, name)
    return channel
