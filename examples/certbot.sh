#!/usr/bin/env bash
# certbot against our ACME server: allow a name on the issuing CA, make an EAB key, issue a
# certificate over http-01, verify it against our root. Run from the repository folder beside
# `npm start`. certbot's standalone server answers the challenge on HTTP01_PORT, which must be
# the port the server validates on: 80 (as root) or the server's ACME_HTTP01_PORT.
# test/examples runs it with ACME_HTTP01_PORT set to a free port.
set -euo pipefail
DATA_DIR=${DATA_DIR:-./data}
PKI=${PKI:-https://localhost:6565}
DOMAIN=${DOMAIN:-www.localhost}          # names under .localhost resolve to loopback
HTTP01_PORT=${HTTP01_PORT:-80}
WORK=${WORK:-./certbot-example}          # certbot's config, work and log folders
export CURL_CA_BUNDLE=$DATA_DIR/tls/service-ca.crt
export REQUESTS_CA_BUNDLE=$DATA_DIR/tls/service-ca.crt   # certbot (python requests) trusts the same CA
TOKEN=$(cat "$DATA_DIR/initial-admin-token")
mkdir -p "$WORK"

curl -s -H "AUTHTOKEN: $TOKEN" $PKI/api/pki/restapi/setAcmeAllowedDomains \
  --data-urlencode "INPUT_DATA={\"operation\":{\"Details\":{\"caName\":\"issuing-ca\",\"allowedDomains\":\"$DOMAIN\"}}}" \
  | jq -e '.result.status == "Success"' >/dev/null
EAB=$(curl -s -H "AUTHTOKEN: $TOKEN" $PKI/api/pki/restapi/createAcmeEabKey \
  --data-urlencode 'INPUT_DATA={"operation":{"Details":{"caName":"issuing-ca"}}}')
KID=$(echo "$EAB" | jq -r '.details.keyId')
HMAC=$(echo "$EAB" | jq -r '.details.hmacKey')

certbot certonly --standalone --non-interactive --agree-tos --register-unsafely-without-email \
  --config-dir "$WORK/config" --work-dir "$WORK/work" --logs-dir "$WORK/logs" \
  --server $PKI/acme/issuing-ca/directory --eab-kid="$KID" --eab-hmac-key="$HMAC" \
  --http-01-port "$HTTP01_PORT" --http-01-address 127.0.0.1 -d "$DOMAIN"

curl -s -o "$WORK/root-ca.crt" $PKI/ca/root-ca.crt
LIVE=$WORK/config/live/$DOMAIN
openssl verify -CAfile "$WORK/root-ca.crt" -untrusted "$LIVE/chain.pem" "$LIVE/cert.pem"
openssl x509 -in "$LIVE/cert.pem" -noout -subject -issuer -enddate
