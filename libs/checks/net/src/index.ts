export { addressPolicy, isPublicAddress, type AddressPolicy } from './address-policy';
export {
  addressResolver,
  createOutbound,
  Outbound,
  pinnedLookup,
  RefusedAddressError,
  type AddressResolver,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound';
