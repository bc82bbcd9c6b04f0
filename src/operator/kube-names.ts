/** apimachinery IsDNS1123Label: a namespace's name (at most 63 characters, checked apart). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
/** apimachinery IsDNS1123Subdomain: the name of most objects (a FeatureStore's, a Secret's...). */
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** Longest namespace name, and longest label value (the store's name is the label `feast.dev/name`). */
const MAX_NAME_LABEL = 63

/** A namespace's name as the API server accepts it. */
export function isNamespaceName (value: unknown): value is string {
  return typeof value === 'string' && DNS_LABEL.test(value) && value.length <= MAX_NAME_LABEL
}

/** A FeatureStore's name as feast-authz takes it: a DNS subdomain short enough to be a label value. */
export function isStoreName (value: unknown): value is string {
  return typeof value === 'string' && DNS_SUBDOMAIN.test(value) && value.length <= MAX_NAME_LABEL
}

/** apimachinery ValidateRBACName (path.IsValidPathSegmentName): a Role's name, which may hold what a DNS name may not, but not `/` or `%`. */
export function isRbacName (value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..' && !/[/%]/.test(value)
}
