// Reads a JSON array of Kubernetes objects on stdin; prints a JSON array of problems (test/deploy/k8s-validate.ts).
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

const MODELS = new Map(
  [
    Deployment,
    HorizontalPodAutoscaler,
    Job,
    NetworkPolicy,
    PodDisruptionBudget,
    ConfigMap,
    Namespace,
    Secret,
    Service,
    ScaledObject,
    TriggerAuthentication,
    PrometheusRule,
    ServiceMonitor,
  ].map((model) => [`${model.apiVersion} ${model.kind}`, model]),
);

/**
 * The compiled validators do not reject unknown fields (the API server does, with strict field validation):
 * every field the validator never reads is one its schema has no property for. Maps (labels, data) are read
 * whole by the validator, so their keys count as read.
 */
function problems(object) {
  const where = `${object.kind}/${object.metadata?.name}`;
  const model = MODELS.get(`${object.apiVersion} ${object.kind}`);
  if (!model) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  const present = new Set();
  const read = new Set();
  const proxies = new WeakMap();
  const watch = (value, path) => {
    if (value === null || typeof value !== 'object') return value;
    if (proxies.has(value)) return proxies.get(value);
    if (!Array.isArray(value)) for (const key of Object.keys(value)) present.add(`${path}/${key}`);
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const found = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || !Object.hasOwn(target, key)) return found;
        read.add(`${path}/${key}`);
        return watch(found, `${path}/${key}`);
      },
      ownKeys(target) {
        for (const key of Object.keys(target)) read.add(`${path}/${key}`);
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  try {
    model.prototype.validate.call(watch(object, ''));
  } catch (error) {
    return [`${where}: ${error.message}`];
  }
  return [...present].filter((path) => !read.has(path)).map((path) => `${where}: unknown field ${path}`);
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(JSON.parse(input).flatMap(problems)));
