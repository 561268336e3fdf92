#!/usr/bin/env python3
"""A script's view of the vault with `requests`: create a resource, read its password, rotate
the password to a generated one, read it again. Configure with environment variables:

    VAULT_URL    https://localhost:7272
    VAULT_TOKEN  an API user's token (e.g. the contents of data/initial-admin-token)
    VAULT_CA     the CA to trust: data/tls/service-ca.crt

Run: python3 examples/vault_client.py [resource name]   (test/examples runs it)
"""
import json
import os
import sys

import requests

API = os.environ.get("VAULT_URL", "https://localhost:7272") + "/restapi/json/v1"
SESSION = requests.Session()
SESSION.headers["AUTHTOKEN"] = os.environ["VAULT_TOKEN"]
# Passed on every call: requests lets REQUESTS_CA_BUNDLE in the environment override a session's verify.
CA = os.environ.get("VAULT_CA", "data/tls/service-ca.crt")


class VaultError(Exception):
    pass


def call(method, path, **details):
    """One operation: INPUT_DATA in the query for GET, in the form body otherwise."""
    input_data = json.dumps({"operation": {"Details": details}}) if details else None
    if method == "GET":
        response = SESSION.get(API + path, params={"INPUT_DATA": input_data} if input_data else None, verify=CA, timeout=30)
    else:
        response = SESSION.request(method, API + path, data={"INPUT_DATA": input_data} if input_data else None, verify=CA, timeout=30)
    # Failures answer HTTP 200 with status Failed and a message; 5xx are server faults.
    response.raise_for_status()
    operation = response.json()["operation"]
    if operation["result"]["status"] != "Success":
        raise VaultError(f'{operation["name"]}: {operation["result"]["message"]}')
    return operation.get("Details")


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "python-example"
    call("POST", "/resources", RESOURCENAME=name, RESOURCETYPE="Linux", ACCOUNTNAME="svc", PASSWORD="First-Passw0rd!1")
    ids = call("GET", "/resources/getResourceIdAccountId", RESOURCENAME=name, ACCOUNTNAME="svc")
    password_path = f'/resources/{ids["RESOURCEID"]}/accounts/{ids["ACCOUNTID"]}/password'
    print("created:", name, ids)
    print("password:", call("GET", password_path)["PASSWORD"])

    new_password = call("GET", "/passwords/generate", POLICY="Strong")["PASSWORD"]
    call("PUT", password_path, NEWPASSWORD=new_password, RESETTYPE="LOCAL", REASON="rotation by examples/vault_client.py")
    rotated = call("GET", password_path)["PASSWORD"]
    assert rotated == new_password, "the vault does not hold the new password"
    print("rotated:", rotated)


if __name__ == "__main__":
    try:
        main()
    except (VaultError, requests.RequestException) as error:
        sys.exit(f"vault_client: {error}")
