#!/usr/bin/python3
"""A host app written in Python: it asks appexd for an extension, begins a request whose one
item is a text file, hands the file's descriptor over when the extension loads it, and
prints the outcome as one line of JSON.

    host.py EXTENSION-IDENTIFIER FILE

It speaks the wire through appex_wire.py and the wire_pb2.py that protoc generates from
docs/wire.proto (docs/wire.md, "Other languages"). It exits 0 with the outcome, whatever it is,
and 1 when appexd or the extension broke the protocol.
"""
import json
import os
import socket
import sys
import uuid

import appex_wire
import wire_pb2 as wire

NAME = "python host"
TEXT = "public.plain-text"


class Control:
    """The connection to appexd: calls numbered from 1, and the messages that came meanwhile."""

    def __init__(self):
        self.channel = appex_wire.connect_to_daemon(wire.Hello.HOST, NAME)
        self.last_call = 0
        self.other = []

    def call(self, message):
        self.last_call += 1
        message.call = self.last_call
        self.channel.send(message)
        while True:
            answer, descriptors = self.channel.receive()
            if answer is None:
                raise appex_wire.ProtocolError("appexd closed the connection")
            if getattr(answer, "call", 0) == self.last_call:
                if isinstance(answer, wire.Failure):
                    raise appex_wire.ProtocolError(f"{answer.error.description} {answer.error.recovery_suggestion}".strip())
                return answer, descriptors
            self.other.append(answer)

    def interruption(self, request_id, session_id):
        """Why appexd ended the request, once it says so: for the request, or for every
        request of its session (a version-2 daemon's report of the process's end)."""
        while True:
            for message in self.other:
                if isinstance(message, wire.RequestInterrupted) and (request_id in message.request_ids or message.session_id == session_id):
                    return message.reason
            message, _ = self.channel.receive()
            if message is None:
                raise appex_wire.ProtocolError("appexd closed the connection")
            self.other.append(message)


def outcome_of(session, control, request_id, session_id, path):
    """Serves the extension's loads until it completes or cancels the request."""
    while True:
        message, descriptors = session.receive()
        for descriptor in descriptors:
            os.close(descriptor)
        if message is None or isinstance(message, wire.Failure):
            reason = control.interruption(request_id, session_id)
            return {"outcome": "interrupted", "reason": wire.Interruption.Kind.Name(reason.kind), "message": reason.message}
        if isinstance(message, wire.LoadRequest):
            if message.provider_id == 1 and message.type_identifier == TEXT:
                file = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                try:
                    session.send(wire.LoadResult(load_id=message.load_id, type_identifier=TEXT, payload=wire.Payload(
                        descriptor=wire.Descriptor(slot=0, length=os.fstat(file).st_size, filename=os.path.basename(path)))), [file])
                finally:
                    os.close(file)
            else:
                session.send(wire.LoadResult(load_id=message.load_id, type_identifier=message.type_identifier, payload=wire.Payload(
                    error=wire.ErrorInfo(domain="NSItemProviderErrorDomain", code=-1000, description="no such representation"))))
        elif isinstance(message, wire.CompleteRequest) and message.request_id == request_id:
            if not message.without_acknowledgement:
                session.send(wire.RequestAcknowledged(request_id=request_id))
            texts = [item.attributed_content_text.text for item in message.items if item.HasField("attributed_content_text")]
            data = [representation.payload.data.decode() for item in message.items for attachment in item.attachments
                    for representation in attachment.representations if representation.payload.WhichOneof("kind") == "data"]
            return {"outcome": "completed", "text": texts, "data": data}
        elif isinstance(message, wire.CancelledRequest) and message.request_id == request_id:
            return {"outcome": "cancelled", "domain": message.error.domain, "code": message.error.code,
                    "message": message.error.description}


def main():
    identifier, path = sys.argv[1], sys.argv[2]
    control = Control()
    found, _ = control.call(wire.QueryExtensions(identifier=identifier))
    if not found.extensions:
        print(json.dumps({"outcome": "not installed", "identifier": identifier}))
        return
    request_id = uuid.uuid4().bytes
    started, descriptors = control.call(wire.BeginRequest(request_id=request_id, extension_identifier=identifier))
    if not started.new_session or len(descriptors) != 1:
        raise appex_wire.ProtocolError("RequestStarted did not bring a new session's socket")
    session = appex_wire.Channel(socket.socket(fileno=descriptors[0]))
    appex_wire.greet(session, wire.Hello.SESSION_HOST, NAME)
    name = os.path.basename(path)
    session.send(wire.ExtensionRequest(request_id=request_id, items=[wire.Item(
        attributed_title=wire.AttributedText(text=name),
        attachments=[wire.Attachment(provider_id=1, suggested_name=name, representations=[
            wire.Representation(type_identifier=TEXT, kind=wire.Representation.FILE)])])]))
    outcome = outcome_of(session, control, request_id, started.session_id, path)
    outcome["extension"] = found.extensions[0].display_name
    control.channel.send(wire.EndRequest(request_id=request_id))
    session.close()
    print(json.dumps(outcome))


if __name__ == "__main__":
    try:
        main()
    except appex_wire.ProtocolError as error:
        print(f"host.py: {error}", file=sys.stderr)
        sys.exit(1)
