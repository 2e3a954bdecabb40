#!/usr/bin/env bash
# Build the single-user image from this checkout and install (or upgrade) the class's hub, at pinned versions.
#   deploy/install.sh REGISTRY            # e.g. deploy/install.sh ghcr.io/my-school
#   deploy/install.sh REGISTRY graded     # a graded class: solutions switched off (deploy/graded.yaml)
# Needs docker (logged in to REGISTRY), helm and kubectl pointed at your cluster; deploy/README.md explains each step.
set -euo pipefail
CHART_VERSION=4.4.0          # Zero to JupyterHub's chart (JupyterHub 5.5)
REPO2DOCKER_VERSION=2026.4.0 # builds the image as Binder does, from environment.yml and postBuild
registry=${1:?usage: deploy/install.sh REGISTRY [graded]}
tag=$(git rev-parse --short HEAD)  # a new tag per commit: every node pulls the image it names
image="$registry/several-spotlights"
case "${2:-}" in
  "") graded=() ;;
  graded) graded=(--values deploy/graded.yaml) ;;
  *) echo "usage: deploy/install.sh REGISTRY [graded]" >&2; exit 2 ;;
esac
if [ -n "$(git status --porcelain)" ]; then
  echo "commit your changes first: the image is tagged with the commit ($tag)" >&2
  exit 1
fi
python3 -m pip install --quiet "jupyter-repo2docker==$REPO2DOCKER_VERSION"
repo2docker --no-run --user-id 1000 --user-name jovyan --image-name "$image:$tag" .
docker push "$image:$tag"
helm repo add jupyterhub https://hub.jupyter.org/helm-chart/ --force-update
helm upgrade --install spotlights jupyterhub/jupyterhub --version "$CHART_VERSION" \
  --namespace spotlights --create-namespace --values deploy/config.yaml \
  ${graded[@]+"${graded[@]}"} --set singleuser.image.name="$image" --set singleuser.image.tag="$tag"
