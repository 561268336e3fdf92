// Sends N concurrent multipart uploads of SIZE bytes each and prints a JSON summary of the
// answers. Runs as its own process so that the client's memory is not the server's; the
// body is written from one reused 64 KiB chunk, so the client holds little either.
//   node upload-flood.js URL TOKEN COUNT SIZE [header|query]
const http = require('node:http');

const [url, token, count, size, carrier] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5]), process.argv[6] || 'header'];
const target = carrier === 'query' ? `${url}?AUTHTOKEN=${encodeURIComponent(token)}` : url;
const boundary = '----flood' + Math.random().toString(16).slice(2);
const head = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="INPUT_DATA"\r\n\r\n{"operation":{"Details":{"keyName":"flood"}}}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="File"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const chunk = Buffer.alloc(64 * 1024, 0x41);

function one() {
  return new Promise((resolve) => {
    const req = http.request(target, {
      method: 'POST',
      agent: false,
      headers: { ...(carrier === 'query' ? {} : { AUTHTOKEN: token }), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + size + tail.length },
    });
    let answered = false;
    req.on('response', (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => {
        answered = true;
        resolve({ status: res.statusCode, body: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.on('error', (error) => {
      if (!answered) resolve({ error: error.code || error.message });
    });
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = sent + chunk.length <= size ? chunk : chunk.subarray(0, size - sent);
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(tail);
    };
    pump();
  });
}

Promise.all(Array.from({ length: count }, one)).then((results) => {
  const answers = {};
  for (const r of results) {
    const key = r.error ? `error ${r.error}` : `${r.status} ${r.body}`;
    answers[key] = (answers[key] || 0) + 1;
  }
  process.stdout.write(JSON.stringify(answers));
});
