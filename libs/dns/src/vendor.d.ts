declare module 'mailauth/lib/dmarc/get-dmarc-record' {
  type TxtResolver = (name: string, type: string) => Promise<string[][]>;
  function getDmarcRecord(domain: string, resolver: TxtResolver): Promise<false | { p?: string; rr: string; isOrgRecord: boolean }>;
  export = getDmarcRecord;
}
