#!/usr/bin/python3
"""An Action extension written in Python: it loads the text file it is given, through the
descriptor its host hands over, and completes with the text in capitals.

appexd starts it as it starts any extension, in the sandbox, with its daemon channel as
descriptor 3 and its session with the host as descriptor 4 (docs/wire.md, "Channels"). Its
bundle carries this file as its executable, with appex_wire.py and the wire_pb2.py that protoc
generates from docs/wire.proto beside it.
"""
import collections
import os
import socket
import threading

import appex_wire
import wire_pb2 as wire

NAME = "Python Upper"
TEXT = "public.plain-text"


def serve_daemon(daemon):
    """The daemon channel: answers pings, and ends the process when appexd says goodbye or goes."""
    while True:
        message, descriptors = daemon.receive()
        for descriptor in descriptors:
            os.close(descriptor)
        if message is None or isinstance(message, wire.Goodbye):
            os._exit(0)
        if isinstance(message, wire.Ping):
            daemon.send(wire.Pong(call=message.call))


def load(session, request, attachment, representation, load_id, later):
    """Asks the host for `representation` and returns its bytes, or raises with the host's error.
    A request the host sends meanwhile goes to `later`, to be answered after this one."""
    session.send(wire.LoadRequest(load_id=load_id, request_id=request.request_id, provider_id=attachment.provider_id,
                                  type_identifier=representation.type_identifier, kind=representation.kind))
    while True:
        message, descriptors = session.receive()
        if message is None:
            os._exit(0)
        if not isinstance(message, wire.LoadResult) or message.load_id != load_id:
            for descriptor in descriptors:
                os.close(descriptor)
            if isinstance(message, wire.ExtensionRequest):
                later.append(message)
            continue
        try:
            kind = message.payload.WhichOneof("kind")
            if kind == "descriptor":
                slot = message.payload.descriptor
                return os.pread(descriptors[slot.slot], slot.length, 0)
            if kind == "data":
                return message.payload.data
            if kind == "item" and message.payload.item.WhichOneof("kind") == "string":
                return message.payload.item.string.encode()
            raise RuntimeError(message.payload.error.description or f"the host sent {kind} for {TEXT}")
        finally:
            for descriptor in descriptors:
                os.close(descriptor)


def answer(session, request, load_id, later):
    """Completes `request` with its text in capitals, or cancels it saying why not."""
    for item in request.items:
        for attachment in item.attachments:
            for representation in attachment.representations:
                if representation.type_identifier == TEXT:
                    try:
                        text = load(session, request, attachment, representation, load_id, later).decode()
                    except (RuntimeError, UnicodeDecodeError, IndexError) as error:
                        return wire.CancelledRequest(request_id=request.request_id, error=wire.ErrorInfo(
                            domain="NSCocoaErrorDomain", code=256, description=f"{NAME} could not read the text: {error}"))
                    upper = text.upper()
                    # Nothing here waits for the host to take the items: no RequestAcknowledged is needed.
                    return wire.CompleteRequest(request_id=request.request_id, without_acknowledgement=True, items=[wire.Item(
                        attributed_content_text=wire.AttributedText(text=upper),
                        attachments=[wire.Attachment(provider_id=1, representations=[wire.Representation(
                            type_identifier=TEXT, kind=wire.Representation.DATA, payload=wire.Payload(data=upper.encode()))])])])
    return wire.CancelledRequest(request_id=request.request_id, error=wire.ErrorInfo(
        domain="NSCocoaErrorDomain", code=3072, description=f"{NAME} was given no text", recovery_suggestion="Give it a text file."))


def main():
    daemon = appex_wire.Channel(socket.socket(fileno=3))
    session = appex_wire.Channel(socket.socket(fileno=4))
    appex_wire.greet(daemon, wire.Hello.EXTENSION, NAME)
    daemon.send(wire.CheckIn(bundle_identifier=os.environ["APPEX_BUNDLE_IDENTIFIER"]))
    threading.Thread(target=serve_daemon, args=(daemon,), daemon=True).start()

    first, _ = session.receive()
    if first is None:
        return
    welcome = appex_wire.welcome_for(first, NAME)
    session.send(welcome)
    if isinstance(welcome, wire.Failure):
        return
    load_id = 0
    later = collections.deque()
    while True:
        if later:
            message, descriptors = later.popleft(), []
        else:
            message, descriptors = session.receive()
        for descriptor in descriptors:
            os.close(descriptor)
        if message is None:
            return
        if isinstance(message, wire.ExtensionRequest):
            load_id += 1
            session.send(answer(session, message, load_id, later))


if __name__ == "__main__":
    main()
    # At once, not through the interpreter's shutdown: the daemon channel's thread is still reading.
    os._exit(0)
