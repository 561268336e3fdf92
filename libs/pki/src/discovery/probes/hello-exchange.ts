import { RawTarget, RawTlsConnection } from '../raw-connection';
import {
  alertName,
  buildClientHello,
  ClientHelloOptions,
  ContentType,
  HandshakeAssembler,
  HandshakeMessage,
  HandshakeType,
  parseServerHello,
  ServerHello,
} from '../tls-wire';

export type HelloOutcome =
  | { kind: 'accepted'; serverHello: ServerHello; messages: HandshakeMessage[]; connection: RawTlsConnection }
  | { kind: 'rejected'; reason: string };

/**
 * Sends one hand-built ClientHello and reads the server's flight up to ServerHelloDone
 * (or only the ServerHello when `untilDone` is false). An alert or a close is a refusal;
 * timeouts and non-TLS replies are thrown. On acceptance the caller owns the connection.
 */
export async function exchangeHello(
  target: RawTarget,
  hello: ClientHelloOptions,
  untilDone = false,
): Promise<HelloOutcome> {
  const connection = await RawTlsConnection.open(target);
  try {
    connection.send(buildClientHello(hello));
    const assembler = new HandshakeAssembler();
    const messages: HandshakeMessage[] = [];
    let serverHello: ServerHello | undefined;
    for (;;) {
      const record = await connection.next();
      if (!record) {
        connection.close();
        return { kind: 'rejected', reason: 'connection closed' };
      }
      if (record.type === ContentType.Alert) {
        connection.close();
        return { kind: 'rejected', reason: alertName(record.fragment) };
      }
      if (record.type !== ContentType.Handshake) continue;
      for (const message of assembler.push(record.fragment)) {
        messages.push(message);
        if (message.type === HandshakeType.ServerHello) serverHello = parseServerHello(message.body);
      }
      const done = messages.some((m) => m.type === HandshakeType.ServerHelloDone);
      if (serverHello && (!untilDone || done)) return { kind: 'accepted', serverHello, messages, connection };
    }
  } catch (error) {
    connection.close();
    throw error;
  }
}
