import { chargeableRows, headerOf, parseCsv, planCsv } from './csv';

describe('the CSV read in the browser before an upload', () => {
  it('reads quoted fields, semicolons, CRLF and a byte-order mark', () => {
    const records = parseCsv('\uFEFFname;"e-mail"\r\n"Doe; John";john@acme.test\r\n\r\n"say ""hi""";x@y.test');
    expect(records).toEqual([
      ['name', 'e-mail'],
      ['Doe; John', 'john@acme.test'],
      ['say "hi"', 'x@y.test'],
    ]);
    expect(headerOf('a,b\n1,2')).toEqual(['a', 'b']);
  });

  it('picks the column named like email, else the one holding addresses, else asks (null)', () => {
    expect(planCsv(parseCsv('id,Email\n1,a@b.test')).column).toBe('Email');
    expect(planCsv(parseCsv('id,who\n1,a@b.test\n2,c@d.test')).column).toBe('who');
    expect(planCsv(parseCsv('id,who\n1,nope\n2,none\n3,a@b.test')).column).toBeNull();
  });

  it('flags a first row that holds an address: the file has no header', () => {
    expect(planCsv(parseCsv('a@b.test,Ann\nc@d.test,Bob')).headerMissing).toBe(true);
    expect(planCsv(parseCsv('email,name\na@b.test,Ann')).headerMissing).toBe(false);
  });

  it('counts at most one credit per unique address that may pass the syntax check', () => {
    const records = parseCsv('email\na@b.test\nA@B.test\nnot an address\n\nc@d.test\n@x.test\nx@io\ny@');
    expect(planCsv(records).rows).toBe(7);
    // x@io passes the service's syntax (a single-label domain is left to DNS), so it may cost a credit.
    expect(chargeableRows(records, 'email')).toBe(3);
    expect(chargeableRows(records, 'missing')).toBe(0);
  });
});
