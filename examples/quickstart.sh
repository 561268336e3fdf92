#!/usr/bin/env bash
# The README's quick start, the first hour with the vault, as one script: run it from the
# repository folder beside a fresh `npm start` (test/examples runs it exactly so).
# Needs curl and jq. DATA_DIR and VAULT may point elsewhere.
set -euo pipefail
say() { printf '\n== %s\n' "$*"; }

# --- quick start ---
DATA_DIR=${DATA_DIR:-./data}
export VAULT=${VAULT:-https://localhost:7272}
export CURL_CA_BUNDLE=$DATA_DIR/tls/service-ca.crt   # trust the server's own CA (no curl -k)
ADMIN=$(cat "$DATA_DIR/initial-admin-token")
API=$VAULT/restapi/json/v1

say "1. A resource with a first account, then two more through ACCOUNTLIST"
curl -s -H "AUTHTOKEN: $ADMIN" $API/resources --data-urlencode 'INPUT_DATA={"operation":{"Details":{
  "RESOURCENAME":"web-db","RESOURCETYPE":"Linux","DNSNAME":"web-db.example.com",
  "ACCOUNTNAME":"root","PASSWORD":"Root-Passw0rd!1"}}}' | jq -c .operation.result
RID=$(curl -s -H "AUTHTOKEN: $ADMIN" -G $API/resources/getResourceIdAccountId \
  --data-urlencode 'INPUT_DATA={"operation":{"Details":{"RESOURCENAME":"web-db","ACCOUNTNAME":"root"}}}' \
  | jq -r '.operation.Details.RESOURCEID')
curl -s -H "AUTHTOKEN: $ADMIN" $API/resources/$RID/accounts --data-urlencode 'INPUT_DATA={"operation":{"Details":{"ACCOUNTLIST":[
  {"ACCOUNTNAME":"app","PASSWORD":"App-Passw0rd!2","NOTES":"used by the web tier"},
  {"ACCOUNTNAME":"backup","PASSWORD":"Backup-Passw0rd!3"}]}}}' | jq -c .operation.result

say "2. Its accounts and their ids"
curl -s -H "AUTHTOKEN: $ADMIN" $API/resources/$RID/accounts | jq '.operation.Details["ACCOUNT LIST"][] | {id: .["ACCOUNT ID"], name: .["ACCOUNT NAME"]}'
ROOT=$(curl -s -H "AUTHTOKEN: $ADMIN" $API/resources/$RID/accounts | jq -r '.operation.Details["ACCOUNT LIST"][] | select(.["ACCOUNT NAME"]=="root") | .["ACCOUNT ID"]')
APP=$(curl -s -H "AUTHTOKEN: $ADMIN" $API/resources/$RID/accounts | jq -r '.operation.Details["ACCOUNT LIST"][] | select(.["ACCOUNT NAME"]=="app") | .["ACCOUNT ID"]')

say "3. Read a password"
curl -s -H "AUTHTOKEN: $ADMIN" $API/resources/$RID/accounts/$ROOT/password | jq -r '.operation.Details.PASSWORD'

say "4. A second user (an API user with the Password User role) and a share to her"
ALICE_JSON=$(curl -s -H "AUTHTOKEN: $ADMIN" $API/user --data-urlencode 'INPUT_DATA={"operation":{"Details":{
  "USERNAME":"alice","ROLE":"Password User","ISAPIUSER":"true","EMAIL":"alice@example.com"}}}')
ALICE=$(echo "$ALICE_JSON" | jq -r '.operation.Details.AUTHTOKEN')
ALICE_ID=$(echo "$ALICE_JSON" | jq -r '.operation.Details.USERID')
curl -s -H "AUTHTOKEN: $ADMIN" -X PUT $API/resources/$RID/share \
  --data-urlencode "INPUT_DATA={\"operation\":{\"Details\":{\"ACCESSTYPE\":\"view\",\"USERID\":\"$ALICE_ID\"}}}" | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ALICE" $API/resources | jq -c '.operation.Details'

say "5. The app account under access control: request, approve, check out, read, check in"
curl -s -H "AUTHTOKEN: $ADMIN" -X PUT $API/resources/$RID/accounts/$APP/accesscontrol \
  --data-urlencode 'INPUT_DATA={"operation":{"Details":{"APPROVAL_REQUIRED":"true","CHECKOUT_MINUTES":"30"}}}' | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ALICE" $API/resources/$RID/accounts/$APP/password | jq -c '.operation.Details'   # [Request]
curl -s -H "AUTHTOKEN: $ALICE" -X POST $API/accounts/$APP/requestpassword \
  --data-urlencode 'INPUT_DATA={"operation":{"Details":{"REASON":"deploy the new release"}}}' | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ADMIN" $API/accounts/passwordaccessrequests | jq -c '.operation.Details'
curl -s -H "AUTHTOKEN: $ADMIN" -X POST $API/accounts/$APP/requester/$ALICE_ID/approve | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ALICE" -X POST $API/accounts/$APP/checkout \
  --data-urlencode 'INPUT_DATA={"operation":{"Details":{"REASON":"deploy the new release"}}}' | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ALICE" $API/resources/$RID/accounts/$APP/password | jq -r '.operation.Details.PASSWORD'
curl -s -H "AUTHTOKEN: $ALICE" -X POST $API/accounts/$APP/requester/$ALICE_ID/checkin | jq -c .operation.result
curl -s -H "AUTHTOKEN: $ALICE" $API/resources/$RID/accounts/$APP/password | jq -c '.operation.Details'   # [Request] again

say "6. What the audit trail recorded"
curl -s -H "AUTHTOKEN: $ADMIN" -G $API/audit --data-urlencode 'INPUT_DATA={"operation":{"Details":{"LIMIT":"8"}}}' \
  | jq -r '.operation.Details[] | "\(.LASTACCESSEDTIME)  \(.OPERATIONTYPE)  \(.USERNAME)  \(.ACCOUNTNAME)"'
# --- end of quick start ---
