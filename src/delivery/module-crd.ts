import type { JsonObject } from '../core/json.ts';

/** The Module custom resource (docs/module-status.md "The Module object"). */
export const MODULE_GROUP = 'kaddon.dev';
export const MODULE_VERSION = 'v1alpha1';
export const MODULES_PATH = `/apis/${MODULE_GROUP}/${MODULE_VERSION}/modules`;
export const MODULE_CRD_NAME = `modules.${MODULE_GROUP}`;

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
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A module of the kaddon operator and how it is doing. Written by the operator only.',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                description: 'Empty: modules are configured by the modules tree and the ConfigMap.',
              },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer', format: 'int64' },
                  enabled: { type: 'boolean' },
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
