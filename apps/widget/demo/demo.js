// The demo page's own script (kept out of the HTML: the gateway's Content-Security-Policy allows no inline script).
(function () {
  var events = document.getElementById('events');
  function log(text) {
    var item = document.createElement('li');
    item.textContent = text;
    events.insertBefore(item, events.firstChild);
  }
  function value(id) {
    var element = document.getElementById(id);
    return element.type === 'checkbox' ? element.checked : element.value;
  }
  function start() {
    Guard.init({
      blockFree: value('opt-free'),
      blockDisposable: value('opt-disposable'),
      blockSubmit: value('opt-submit'),
      lang: value('opt-lang'),
      messages: { valid: 'Looks good', warning: 'We could not fully confirm this address' },
      onValid: function (e) {
        log('onValid ' + e.email);
      },
      onInvalid: function (e) {
        log('onInvalid ' + e.email + ' (' + e.reason + ')');
      },
      onWarning: function (e) {
        log('onWarning ' + e.email + ' (' + e.result.reason + ')');
      },
    });
  }
  // What the widget says of the input, for people trying it (an unverified address shows no icon).
  var input = document.getElementById('email');
  new MutationObserver(function () {
    document.getElementById('status').textContent = input.getAttribute('data-guard-status') || '(none)';
  }).observe(input, { attributes: true, attributeFilter: ['data-guard-status'] });
  ['opt-free', 'opt-disposable', 'opt-submit', 'opt-lang'].forEach(function (id) {
    document.getElementById(id).addEventListener('change', start);
  });
  start();
})();
