import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appName, countAppObjects, writeAppBase } from './write-app-base.ts';
import { OVERLAY_OBJECTS, writeOverlay } from './write-overlay.ts';

/** A generated kustomization tree in a temporary directory. */
export interface GeneratedTree {
  /** The temporary directory holding everything; remove it with removeTree. */
  readonly root: string;
  /** The overlay to build. */
  readonly overlay: string;
  readonly apps: number;
  /** How many objects a correct build prints. */
  readonly objects: number;
}

function countObjects(apps: number): number {
  let total = OVERLAY_OBJECTS;
  for (let index = 0; index < apps; index++) total += countAppObjects(index);
  return total;
}

/** The app count whose build prints closest to `objects` objects; at least two (the overlay patches app-0001). */
function appsFor(objects: number): number {
  let apps = 2;
  while (Math.abs(countObjects(apps + 1) - objects) < Math.abs(countObjects(apps) - objects)) apps++;
  return apps;
}

/** Writes a tree under os.tmpdir() that builds to about `objects` objects. */
export function generateTree(objects: number): GeneratedTree {
  const root = mkdtempSync(path.join(os.tmpdir(), 'kaddon-bench-'));
  const apps = appsFor(objects);
  for (let index = 0; index < apps; index++) writeAppBase(path.join(root, 'apps', appName(index)), index);
  const overlay = writeOverlay(root, apps);
  return { root, overlay, apps, objects: countObjects(apps) };
}

export function removeTree(tree: GeneratedTree): void {
  rmSync(tree.root, { recursive: true, force: true });
}
