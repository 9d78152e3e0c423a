import type { JsonObject } from '../core/json.ts';

/** The Module custom resource (docs/module-status.md "The Module object"). */
export const MODULE_GROUP = 'kaddon.dev';
export const MODULE_VERSION = 'v1alpha1';
export const MODULES_PATH = `/apis/${MODULE_GROUP}/${MODULE_VERSION}/modules`;
export const MODULE_CRD_NAME = `modules.${MODULE_GROUP}`;

/**
 * The annotation that asks for a module to run now (docs/operations.md "Reconcile now"), Flux's
 * `reconcile.fluxcd.io/requestedAt` in kaddon's group; `status.lastHandledReconcileAt` answers it.
 */
export const RECONCILE_REQUEST_ANNOTATION = 'reconcile.kaddon.dev/requestedAt';

/**
 * `spec.maintenance` values (docs/operations.md "Hands off"): `On` is kaddon's spelling, and
 * addon-operator's `NoResourceReconciliation` means the same; `Off` or no value ends it.
 */
const MAINTENANCE_VALUES = ['On', 'Off', 'NoResourceReconciliation'] as const;

const condition: JsonObject = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: { type: 'string', maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: { type: 'string', maxLength: 1024 },
    message: { type: 'string', maxLength: 32768 },
  },
};

/**
 * The CustomResourceDefinition, as deploy/base/module-crd.yaml ships it (a test keeps the two
 * equal) and as the operator creates or updates it at start.
 */
export const MODULE_CRD: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: MODULE_CRD_NAME, labels: { 'app.kubernetes.io/name': 'kaddon' } },
  spec: {
    group: MODULE_GROUP,
    scope: 'Cluster',
    names: {
      kind: 'Module',
      listKind: 'ModuleList',
      plural: 'modules',
      singular: 'module',
      categories: ['kaddon'],
    },
    versions: [
      {
        name: MODULE_VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Enabled', type: 'boolean', jsonPath: '.status.enabled' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
          {
            name: 'Status',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="Ready")].message',
            priority: 0,
          },
          { name: 'Maintenance', type: 'string', jsonPath: '.spec.maintenance', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description:
              'A module of the kaddon operator and how it is doing. The operator writes status; spec is for people on call.',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                description:
                  'Hands off the module (maintenance). Modules are configured by the modules tree and the ConfigMap.',
                properties: {
                  maintenance: {
                    type: 'string',
                    enum: [...MAINTENANCE_VALUES],
                    description:
                      'On (or NoResourceReconciliation): the module is not delivered, its drift not corrected and it is not uninstalled until Off; values changes are delivered then.',
                  },
                  maintenanceHooks: {
                    type: 'string',
                    enum: ['Run', 'Stop'],
                    description:
                      "While in maintenance: Run (the default) keeps running the module's hooks; Stop holds them too.",
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer', format: 'int64' },
                  enabled: { type: 'boolean' },
                  maintenance: {
                    type: 'object',
                    description: 'Set while the module is in maintenance.',
                    properties: {
                      since: { type: 'string', format: 'date-time' },
                      hooks: { type: 'string' },
                      pending: {
                        type: 'boolean',
                        description: 'A delivery is held: it runs when maintenance ends.',
                      },
                    },
                  },
                  lastHandledReconcileAt: {
                    type: 'string',
                    description: 'The reconcile.kaddon.dev/requestedAt value the last run answered.',
                  },
                  conditions: {
                    type: 'array',
                    items: condition,
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                  },
                  lastDelivered: {
                    type: 'object',
                    properties: {
                      time: { type: 'string', format: 'date-time' },
                      gitRevision: { type: 'string' },
                      valuesChecksum: { type: 'string' },
                      helmRevision: { type: 'integer' },
                      objects: { type: 'integer' },
                    },
                  },
                  health: {
                    type: 'object',
                    properties: { status: { type: 'string' }, message: { type: 'string' } },
                  },
                  drift: {
                    type: 'object',
                    description: 'The last drift check that found objects changed outside kaddon.',
                    properties: {
                      time: { type: 'string', format: 'date-time' },
                      objects: { type: 'integer' },
                      corrected: { type: 'boolean' },
                      message: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
