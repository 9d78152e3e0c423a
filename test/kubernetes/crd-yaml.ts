/** A namespaced, schemaless apiextensions.k8s.io/v1 CustomResourceDefinition as YAML, for tests. */
export function crdYaml(group: string, plural: string, kind: string, labels: Record<string, string>): string {
  const labelLines = Object.entries(labels).map(([key, value]) => `    ${key}: ${value}\n`);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
  labels:
${labelLines.join('')}spec:
  group: ${group}
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
}
