#!/bin/sh
# Run once by Patroni on the node that bootstraps the cluster: the service's login and database.
# $1 is a connection URL for the new cluster's superuser.
set -eu
psql -v ON_ERROR_STOP=1 -d "$1" <<SQL
CREATE ROLE vault LOGIN PASSWORD '${VAULT_DB_PASSWORD}';
CREATE DATABASE vault OWNER vault;
SQL
