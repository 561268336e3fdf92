#!/usr/bin/env bash
# What the test suite needs from the machine, checked before any test runs (`npm test` and
# `.ci/run` both call this). As root with apt-get: installs the missing Debian packages.
# Otherwise: stops with one message naming exactly what to install.
#
#   scripts/test-prereqs.sh [command=package ...]   extra needs, e.g. psql=postgresql-client
set -euo pipefail

# command the tests run = the Debian package that provides it
needs=(
  sshd=openssh-server     # real sshd peers for the SSH key and remote password tests
  ssh=openssh-client
  ssh-keygen=openssh-client
  sshpass=sshpass         # password logins with the real ssh client
  sudo=sudo               # sudoer users on the sshd peer
  openssl=openssl         # certificates checked with the real tool
  keytool=default-jre-headless  # JKS key stores checked with the real tool
  promtool=prometheus     # the /metrics exposition checked with Prometheus's own parser
  useradd=passwd          # throwaway users for the sshd peer
  certbot=certbot         # the ACME server proven with real clients
  lego=lego
  aiosmtpd=python3-aiosmtpd  # a real SMTP server for the expiry notices
  pg_ctl=postgresql          # the database outage test runs a PostgreSQL server of its own
  mariadbd=mariadb-server    # a throwaway MariaDB for the mysql connector's tests
  slapd=slapd                # a throwaway OpenLDAP for the ldap connector's tests
  openapi_spec_validator=python3-openapi-spec-validator  # the OpenAPI documents checked by Python's validator
  requests=python3-requests  # examples/vault_client.py, run with /usr/bin/python3
  ansible-playbook=ansible-core  # examples/fetch-password.yml
  jq=jq                      # examples/quickstart.sh and certbot.sh read answers with jq
  patroni=patroni            # the failover drill: two PostgreSQL nodes under Patroni ...
  patronictl=patroni
  etcd=etcd-server           # ... with etcd as its store
  chromium=chromium          # the web console driven in a real browser (playwright-core)
  samba=samba                # Samba as an Active Directory domain controller (the ad connector, directory sign-in) ...
  samba-tool=samba-common-bin
  samba_setup=samba-ad-provision   # ... provisioned from its templates
  samba_dsdb=samba-dsdb-modules    # ... with the directory's own modules
  samba_vfs=samba-vfs-modules      # ... and acl_xattr, which provisioning uses to set the sysvol ACLs
  "$@"
)

have() {
  # A Python module, not a command; /usr/bin/python3 because a pyenv shim may shadow Debian's.
  if [ "$1" = aiosmtpd ] || [ "$1" = requests ]; then /usr/bin/python3 -c "import $1" >/dev/null 2>&1; return; fi
  # Any python3 on PATH that has it will do (the machine's image may bring it through pip).
  if [ "$1" = openapi_spec_validator ]; then python3 -c "import $1" >/dev/null 2>&1 || /usr/bin/python3 -c "import $1" >/dev/null 2>&1; return; fi
  if [ "$1" = pg_ctl ]; then ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; return; fi
  if [ "$1" = samba_setup ]; then [ -d /usr/share/samba/setup ]; return; fi
  if [ "$1" = samba_dsdb ]; then ls /usr/lib/*/samba/ldb/acl.so >/dev/null 2>&1; return; fi
  if [ "$1" = samba_vfs ]; then ls /usr/lib/*/samba/vfs/acl_xattr.so >/dev/null 2>&1; return; fi
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]
}

missing=()
for need in "${needs[@]}"; do
  cmd="${need%%=*}" pkg="${need#*=}"
  have "$cmd" || [[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
done

if [ "$(id -u)" != 0 ]; then
  # The sshd peers create throwaway local users (useradd, chpasswd): that needs root.
  msg="The tests must run as root: the SSH tests create throwaway local users on a real sshd"
  [ ${#missing[@]} -gt 0 ] && msg+=", and they need these Debian packages: ${missing[*]}"
  echo "$msg. Run them as root (sudo npm test), which installs any missing package with apt-get." >&2
  exit 1
fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "The tests need these Debian packages (or your system's equivalents): ${missing[*]}. Install them, then run the tests again." >&2
    exit 1
  fi
  echo "test prerequisites: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
